import type { WebSocketDisconnect } from "../response/errors.ts";

/** A received message: text frames are strings, binary frames bytes. */
export type Message = string | Uint8Array;

interface Waiter {
  resolve(message: Message): void;
  reject(error: WebSocketDisconnect): void;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/** What the inbox needs from the socket to apply backpressure. */
export interface FlowControl {
  pause(): void;
  resume(): void;
}

/**
 * Messages received before the handler asks for them. Bounded: when it holds
 * `maxMessages` messages or `maxBytes` bytes, the socket stops reading (TCP
 * backpressure reaches the client) and resumes once the handler has read half.
 * Messages Bun had already read when it paused still arrive, so the overshoot
 * is at most one socket read.
 */
export class Inbox {
  private readonly items: Message[] = [];
  private head = 0;
  private bytes = 0;
  /** Receives waiting for a message, in call order. */
  private readonly waiters: Waiter[] = [];
  private paused = false;
  private ended: WebSocketDisconnect | null = null;

  constructor(
    private readonly flow: FlowControl,
    private readonly maxMessages: number,
    private readonly maxBytes: number,
  ) {}

  get size(): number {
    return this.items.length - this.head;
  }

  push(message: Message): void {
    if (this.ended) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      // The handler is already waiting: hand over without queueing.
      waiter.resolve(message);
      return;
    }
    this.items.push(message);
    this.bytes += sizeOf(message);
    if (!this.paused && (this.size >= this.maxMessages || this.bytes >= this.maxBytes)) {
      this.paused = true;
      this.flow.pause();
    }
  }

  /** The next message; after the end, queued messages are still delivered, then it throws `WebSocketDisconnect`. */
  next(): Promise<Message> {
    if (this.size > 0) return Promise.resolve(this.shift());
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
    });
  }

  /**
   * `next()` as an iterator result, ending (instead of throwing) at the disconnect: what
   * `for await` calls, without the promises an async generator would add per message.
   */
  nextResult(): Promise<IteratorResult<Message, undefined>> {
    if (this.size > 0) return Promise.resolve({ done: false, value: this.shift() });
    if (this.ended) return Promise.resolve(DONE);
    return new Promise((resolve) => {
      this.waiters.push({ resolve: (value) => resolve({ done: false, value }), reject: () => resolve(DONE) });
    });
  }

  /** No more messages will come: a waiting receive fails with `reason`. */
  end(reason: WebSocketDisconnect): void {
    if (this.ended) return;
    this.ended = reason;
    for (const waiter of this.waiters.splice(0)) waiter.reject(reason);
  }

  private shift(): Message {
    const message = this.items[this.head] as Message;
    this.items[this.head] = "";
    this.head++;
    this.bytes -= sizeOf(message);
    if (this.head === this.items.length) {
      this.items.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    if (this.paused && !this.ended && this.size <= this.maxMessages / 2 && this.bytes <= this.maxBytes / 2) {
      this.paused = false;
      this.flow.resume();
    }
    return message;
  }
}

function sizeOf(message: Message): number {
  // UTF-16 length is close enough for a memory bound and costs nothing to read.
  return typeof message === "string" ? message.length : message.byteLength;
}
