/**
 * A typed WebSocket connection to a webfw WebSocket route (`api.ws(path, input)`):
 * `send` takes what the route declared clients send (JSON, or text for a string type),
 * `for await` gives what the server sends, parsed the way SSE data is (JSON objects and
 * arrays parsed, other text as text, binary as bytes). Built on the platform's
 * `WebSocket` (browsers, Bun, Node 22+); messages that arrive before anyone reads are
 * queued, and the iteration ends when the connection closes.
 */
import { sseData } from "./sse-stream.ts";

/** The closing handshake as the client saw it. */
export interface SocketClose {
  code: number;
  reason: string;
  /** False when the connection dropped without a closing handshake (1006). */
  wasClean: boolean;
}

/** The constructor to connect with: the global `WebSocket`, or any with its shape (`ws` on old Node). */
export type WebSocketConstructor = new (url: string, options?: unknown) => WebSocket;

/** Thrown by `opened` when the connection could not be made (refused upgrade, unreachable, 4xx). */
export class SocketOpenError extends Error {
  readonly close: SocketClose;
  constructor(url: string, close: SocketClose) {
    super(
      `WebSocket ${url} did not open (close code ${close.code}${close.reason ? `: ${close.reason}` : ""})`,
    );
    this.name = "SocketOpenError";
    this.close = close;
  }
}

export class ClientWebSocket<Send = unknown, Receive = unknown> implements AsyncIterable<Receive> {
  /** The platform socket underneath (for `bufferedAmount`, `protocol`, …). */
  readonly socket: WebSocket;
  /** Resolves once the connection is open; rejects with `SocketOpenError` when it never opens. */
  readonly opened: Promise<void>;
  /** Resolves with the close code and reason once the connection has closed (never rejects). */
  readonly closed: Promise<SocketClose>;
  readonly #queue: Receive[] = [];
  #waiting: ((result: IteratorResult<Receive, undefined>) => void) | null = null;
  #ended = false;

  constructor(url: string, Socket: WebSocketConstructor, options?: unknown) {
    this.socket = options === undefined ? new Socket(url) : new Socket(url, options);
    this.socket.binaryType = "arraybuffer";
    let wasOpen = false;
    const opened = Promise.withResolvers<void>();
    const closed = Promise.withResolvers<SocketClose>();
    this.opened = opened.promise;
    this.closed = closed.promise;
    // `opened` may never be awaited when the caller only iterates: its rejection must not go unhandled.
    this.opened.catch(() => undefined);
    this.socket.addEventListener("open", () => {
      wasOpen = true;
      opened.resolve();
    });
    this.socket.addEventListener("message", (event) =>
      this.#push(decode((event as MessageEvent).data) as Receive),
    );
    this.socket.addEventListener("close", (event) => {
      const close = { code: event.code, reason: event.reason, wasClean: event.wasClean };
      if (!wasOpen) opened.reject(new SocketOpenError(url, close));
      closed.resolve(close);
      this.#end();
    });
  }

  /** Sends a message: text as it is when it is a string, anything else as JSON. Waits until open. */
  async send(message: Send): Promise<void> {
    await this.opened;
    if (typeof message === "string") return this.socket.send(message);
    if (message instanceof Uint8Array || message instanceof ArrayBuffer) return this.socket.send(message);
    const text = JSON.stringify(message);
    if (text === undefined) throw new TypeError("WebSocket message is not JSON");
    this.socket.send(text);
  }

  /** The next message, or `undefined` once the connection has closed and every message was read. */
  async receive(): Promise<Receive | undefined> {
    const result = await this.#next();
    return result.done ? undefined : result.value;
  }

  /** Closes the connection (1000 unless told otherwise) and resolves once it is closed. */
  close(code = 1000, reason = ""): Promise<SocketClose> {
    if (this.socket.readyState < 2) this.socket.close(code, reason);
    return this.closed;
  }

  [Symbol.asyncIterator](): AsyncIterator<Receive, undefined> {
    return {
      next: () => this.#next(),
      return: async () => {
        await this.close();
        return { done: true, value: undefined };
      },
    };
  }

  #next(): Promise<IteratorResult<Receive, undefined>> {
    if (this.#queue.length > 0)
      return Promise.resolve({ done: false, value: this.#queue.shift() as Receive });
    if (this.#ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  #push(message: Receive): void {
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = null;
      waiting({ done: false, value: message });
    } else this.#queue.push(message);
  }

  #end(): void {
    this.#ended = true;
    const waiting = this.#waiting;
    this.#waiting = null;
    waiting?.({ done: true, value: undefined });
  }
}

function decode(data: unknown): unknown {
  if (typeof data === "string") return sseData(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}

/** `http(s)://host/base` + a filled path and query → `ws(s)://…`. */
export function socketUrl(httpUrl: string): string {
  return httpUrl.replace(/^http/i, "ws");
}
