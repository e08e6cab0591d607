import { streamedResponse } from "../response/streamed.ts";
import { iterableToStream } from "./iterable-stream.ts";

/** One Server-Sent Event. `data` is sent as is when a string, else as JSON. */
export interface SseEvent {
  data: unknown;
  /** Event type (`addEventListener(type, …)` on the client); default `message`. */
  event?: string;
  /** Sets the client's `lastEventId`, sent back as `Last-Event-ID` on reconnection. */
  id?: string;
  /** Reconnection delay the client should use, in milliseconds. */
  retry?: number;
}

export interface SseOptions {
  /** A comment line is sent this often so proxies keep the connection open; 0 disables. Default 15000. */
  keepAliveMs?: number;
  /** Sent first as `retry:`, the client's reconnection delay in milliseconds. */
  retry?: number;
}

const EVENT_KEYS = new Set(["data", "event", "id", "retry"]);
const textDecoder = new TextDecoder();

/**
 * True for an object shaped as an `SseEvent`: it has `data` and no key other
 * than `data`, `event`, `id`, `retry`. Any other object is sent as JSON data.
 */
export function isSseEvent(value: unknown): value is SseEvent {
  if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.hasOwn(value, "data")) {
    return false;
  }
  for (const key of Object.keys(value)) if (!EVENT_KEYS.has(key)) return false;
  return true;
}

/** Line breaks in a field would end it early and let data forge fields: they are removed. */
function fieldValue(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL makes clients ignore an id, so it goes too
  return value.replace(/[\r\n\u0000]/g, "");
}

function dataText(data: unknown): string {
  if (typeof data === "string") return data;
  if (data instanceof Uint8Array) return textDecoder.decode(data);
  return JSON.stringify(data) ?? "";
}

/**
 * The wire form of one event: `event:`, `id:`, `retry:`, one `data:` line per
 * line of the data (split on LF, CRLF and CR, as the client joins them back
 * with LF), and a blank line.
 */
export function formatSseEvent(item: SseEvent | string | object): string {
  const event: SseEvent =
    typeof item === "string" ? { data: item } : isSseEvent(item) ? item : { data: item };
  let out = "";
  if (event.event !== undefined) out += `event: ${fieldValue(String(event.event))}\n`;
  if (event.id !== undefined) out += `id: ${fieldValue(String(event.id))}\n`;
  if (event.retry !== undefined && Number.isInteger(event.retry) && event.retry >= 0)
    out += `retry: ${event.retry}\n`;
  for (const line of dataText(event.data).split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/**
 * A `text/event-stream` body; return it from a handler (`return sse(gen())`),
 * the response converter calls `toResponse(request.signal)`.
 */
export class SseBody<Item = SseEvent | string | object> {
  /** Phantom field: the items' type, for a typed client (`webfw/client`); never set at run time. */
  declare readonly "~items": Item;
  readonly source: AsyncIterable<SseEvent | string | object>;
  readonly options: SseOptions;

  constructor(source: AsyncIterable<SseEvent | string | object>, options: SseOptions = {}) {
    this.source = source;
    this.options = options;
  }

  /**
   * The streamed response. The first bytes go out at once (Bun sends the
   * headers with the first chunk, and `EventSource` opens on the headers);
   * a keep-alive comment follows every `keepAliveMs`. When the client
   * disconnects (`signal` aborts or the stream is cancelled) the generator's
   * `return()` is called, so it stops at its next `yield`. When the source
   * throws, the error is logged and the stream ends after the events sent.
   */
  toResponse(signal?: AbortSignal): globalThis.Response {
    const { keepAliveMs = 15_000, retry } = this.options;
    const stream = iterableToStream(frames(this.source, keepAliveMs, retry, signal), signal);
    return streamedResponse(stream, {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
        // nginx buffers proxied responses unless told not to.
        "x-accel-buffering": "no",
      },
    });
  }
}

/** `sse(gen())`: stream the values of an async iterable as Server-Sent Events. */
export function sse<Item extends SseEvent | string | object>(
  source: AsyncIterable<Item>,
  opts?: SseOptions,
): SseBody<Item> {
  return new SseBody<Item>(source, opts);
}

/**
 * The frames to send: the opening line, then each event, with keep-alive
 * comments interleaved while the source is slow. Racing `next()` against a
 * timer keeps one pending `next()` at a time, so the source is never asked
 * for two values at once.
 */
async function* frames(
  source: AsyncIterable<SseEvent | string | object>,
  keepAliveMs: number,
  retry: number | undefined,
  signal: AbortSignal | undefined,
): AsyncGenerator<string> {
  const iterator = source[Symbol.asyncIterator]();
  let done = false;
  try {
    yield retry !== undefined && Number.isInteger(retry) && retry >= 0 ? `retry: ${retry}\n\n` : ": open\n\n";
    let pending: Promise<IteratorResult<SseEvent | string | object>> | null = null;
    for (;;) {
      if (signal?.aborted) return;
      pending ??= iterator.next();
      const result = keepAliveMs > 0 ? await raceTimeout(pending, keepAliveMs) : await pending;
      if (result === TIMEOUT) {
        yield ": keep-alive\n\n";
        continue;
      }
      pending = null;
      if (result.done) {
        done = true;
        return;
      }
      yield formatSseEvent(result.value);
    }
  } catch (error) {
    // The status line is long gone: log it and end the stream cleanly, so the
    // client reconnects (with Last-Event-ID) instead of seeing a reset connection.
    done = true;
    console.error("webfw: the sse() source threw; the event stream was closed:", error);
  } finally {
    // Reached on disconnect (our own return() was called) and on errors: stop the user's generator too.
    if (!done) await Promise.resolve(iterator.return?.()).catch(() => {});
  }
}

const TIMEOUT = Symbol("timeout");

/** `promise`, or TIMEOUT after `ms`; the timer is cleared when the promise settles first. */
async function raceTimeout<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMEOUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMEOUT), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
