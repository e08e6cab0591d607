import type { WebSocketDisconnect } from "../response/errors.ts";

export type Outgoing = string | Uint8Array | ArrayBuffer;

/** The part of Bun's `ServerWebSocket` the outbox writes to. */
export interface SendTarget {
  /** Bun: bytes sent, `-1` buffered under backpressure, `0` dropped (buffer past the limit, or closed). */
  send(data: Outgoing): number;
  getBufferedAmount(): number;
}

interface Pending {
  data: Outgoing;
  resolve(): void;
  reject(error: WebSocketDisconnect): void;
}

const SENT: Promise<void> = Promise.resolve();

/**
 * Sends in order without buffering without bound. While Bun's buffer for this
 * client holds `limit` bytes or more, messages wait here and their promises
 * resolve at `drain`; a handler that awaits its sends is thereby slowed to the
 * client's pace. Messages nobody awaited pile up here instead: past `limit`
 * bytes, `overflow` is called (the connection closes).
 */
export class Outbox {
  private readonly queue: Pending[] = [];
  private queuedBytes = 0;
  private ended: WebSocketDisconnect | null = null;
  /** Bun reported buffered data on the last write: check the buffer before the next (else skip that native call). */
  private pressured = false;

  constructor(
    private readonly target: SendTarget,
    private readonly limit: number,
    private readonly overflow: () => void,
  ) {}

  send(data: Outgoing): Promise<void> {
    if (this.ended) return handled(Promise.reject(this.ended));
    if (this.queue.length === 0 && (!this.pressured || this.hasRoom())) {
      const status = this.target.send(data);
      this.pressured = status <= 0;
      if (status !== 0) return SENT;
    }
    return handled(
      new Promise<void>((resolve, reject) => {
        this.queue.push({ data, resolve, reject });
        this.queuedBytes += sizeOf(data);
        // One awaited message may be larger than the limit; two or more waiting means nobody is awaiting.
        if (this.limit > 0 && this.queue.length > 1 && this.queuedBytes > this.limit) this.overflow();
      }),
    );
  }

  /** Bun's buffer went down: write what waits, as far as the limit allows. */
  drain(): void {
    while (this.queue.length > 0 && !this.ended && this.hasRoom()) {
      const pending = this.queue[0] as Pending;
      const status = this.target.send(pending.data);
      this.pressured = status <= 0;
      if (status === 0) return;
      this.queue.shift();
      this.queuedBytes -= sizeOf(pending.data);
      pending.resolve();
    }
  }

  /** The connection is gone: waiting sends fail with `reason`. */
  end(reason: WebSocketDisconnect): void {
    if (this.ended) return;
    this.ended = reason;
    for (const pending of this.queue.splice(0)) pending.reject(reason);
    this.queuedBytes = 0;
  }

  private hasRoom(): boolean {
    return this.limit === 0 || this.target.getBufferedAmount() < this.limit;
  }
}

/**
 * Marks the promise as handled so a send nobody awaited cannot crash the
 * process with an unhandled rejection; whoever awaits it still gets the error.
 */
function handled(promise: Promise<void>): Promise<void> {
  promise.catch(() => {});
  return promise;
}

function sizeOf(data: Outgoing): number {
  return typeof data === "string" ? data.length : data.byteLength;
}
