import { strictUtf8 } from "../http/utf8.ts";
import { BadRequestError, HttpError } from "../response/errors.ts";
import { later } from "../serve/later.ts";
import type { BodyBudget } from "./budget.ts";

const EMPTY = new Uint8Array(0);

function tooLarge(): HttpError {
  return new HttpError(413, "Payload Too Large");
}

// Both close the connection (Bun honours `Connection: close`), so the unread rest of the body is
// dropped with the socket instead of being buffered.
function overBudget(): HttpError {
  return new HttpError(503, "Service Unavailable: too many request bodies in flight", {
    "retry-after": "1",
    connection: "close",
  });
}

function readTimedOut(): HttpError {
  return new HttpError(408, "Request Timeout: the body did not arrive in time", { connection: "close" });
}

/** Limits shared by every request of the app: the in-flight total and the read deadline. */
export interface BodyLimits {
  budget: BodyBudget;
  /** Milliseconds the whole body may take to arrive; 0: no limit. */
  readTimeoutMs: number;
}

/** Content-Length bodies above this size are read chunk by chunk (exact memory) rather than whole. */
const STREAM_ABOVE = 256 * 1024;

/** A body read with a deadline, waiting for its sweeper. */
interface PendingRead {
  /** The sweeper tick at which it expires. */
  deadline: number;
  /** Its index in the sweeper's list while watched, -1 once it is not. */
  slot: number;
  /** The sweeper watching it, `null` before `watch`. */
  sweeper: Sweeper | null;
  expire(): void;
}

/**
 * The deadlines of body reads are kept by one timer per tick length (not one timer per read), in
 * the timer's ticks rather than read from a clock: no `performance.now()` per request (65 ns on a
 * VM, docs/performance.md). A tick is a twentieth of the read timeout, at least 50 ms and at most
 * 1 s, and a 408 comes at most two ticks later than the timeout (2 s for the default 30 s), never
 * earlier. A long tick matters under load: the timer stops when no read is left and starts again
 * with the next one, and at 50 ms that stop and start cost ~500 instructions a request on a
 * one-connection JSON echo (docs/performance.md, "Issue 32, third pass: POST /json").
 * @internal Exported for its test.
 */
export function deadlineTickMs(timeoutMs: number): number {
  return Math.min(1000, Math.max(50, Math.floor(timeoutMs / 20)));
}

/**
 * The reads of one tick length being watched. A read leaves the list the moment it ends, by
 * swapping the last entry into its place (it knows its index, `slot`): no `Set` insert and delete
 * per request (hashing an object key twice), and nothing of a finished read, its bytes included,
 * is held until the next tick (under load that kept a tick's worth of bodies alive into the old
 * generation, docs/performance.md, "POST /json").
 */
class Sweeper {
  private readonly reads: PendingRead[] = [];
  private timer: ReturnType<typeof setInterval> | null = null;
  private tick = 0;

  constructor(private readonly tickMs: number) {}

  /** Registers `read` to expire `ms` from now unless it leaves the list (`unwatch`) first. */
  watch(read: PendingRead, ms: number): void {
    // +1: the current tick is already partly over, so a read is never expired early.
    read.deadline = this.tick + Math.ceil(ms / this.tickMs) + 1;
    read.sweeper = this;
    read.slot = this.reads.length;
    this.reads.push(read);
    if (this.timer === null) {
      this.timer = setInterval(() => this.sweep(), this.tickMs);
      // The server keeps the process alive; a pending body read alone must not.
      this.timer.unref?.();
    }
  }

  /** Takes `read` off the list (at once, in O(1)); a read that is not on it is left alone. */
  unwatch(read: PendingRead): void {
    const index = read.slot;
    if (index < 0) return;
    read.slot = -1;
    const last = this.reads.pop() as PendingRead;
    if (last !== read) {
      this.reads[index] = last;
      last.slot = index;
    }
  }

  private sweep(): void {
    this.tick++;
    const reads = this.reads;
    // From the end: `unwatch` moves the last entry, one already looked at, into the freed index.
    for (let i = reads.length - 1; i >= 0; i--) {
      const read = reads[i];
      if (read !== undefined && read.deadline <= this.tick) {
        this.unwatch(read);
        read.expire();
      }
    }
    if (reads.length === 0 && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}

const sweepers = new Map<number, Sweeper>();
/** The last one asked for: an app has one read timeout, so this is nearly always the answer. */
let lastSweeper: Sweeper | null = null;
let lastTimeoutMs = -1;

/** Registers `read` to expire `ms` from now (see `Sweeper`). */
function watch(read: PendingRead, ms: number): void {
  if (ms !== lastTimeoutMs || lastSweeper === null) {
    const tickMs = deadlineTickMs(ms);
    let sweeper = sweepers.get(tickMs);
    if (sweeper === undefined) {
      sweeper = new Sweeper(tickMs);
      sweepers.set(tickMs, sweeper);
    }
    lastSweeper = sweeper;
    lastTimeoutMs = ms;
  }
  lastSweeper.watch(read, ms);
}

/** Takes `read` off its sweeper's list; a read that is not on one is left alone. */
function unwatch(read: PendingRead): void {
  if (read.sweeper !== null) read.sweeper.unwatch(read);
}

/** `read`, or a 408 once `ms` have passed (see `sweep`); `onTimeout` stops the read. */
function withDeadline<T>(read: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  if (ms <= 0) return read;
  return new Promise<T>((resolve, reject) => {
    const pending: PendingRead = {
      deadline: 0,
      slot: -1,
      sweeper: null,
      expire() {
        onTimeout();
        reject(readTimedOut());
      },
    };
    watch(pending, ms);
    read.then(
      (value) => {
        unwatch(pending);
        resolve(value);
      },
      (error) => {
        unwatch(pending);
        reject(error);
      },
    );
  });
}

/**
 * The length a `Content-Length` value declares, or -1 when it is not one: digits only (leading and
 * trailing blanks allowed, as before). Bun frames the body by it already; this is the value the
 * limit and the budget are checked against. A loop instead of `trim()` and a regular expression.
 */
function declaredLength(value: string): number {
  let start = 0;
  let end = value.length;
  while (start < end && isBlank(value.charCodeAt(start))) start++;
  while (end > start && isBlank(value.charCodeAt(end - 1))) end--;
  if (start === end) return -1;
  let length = 0;
  for (let i = start; i < end; i++) {
    const digit = value.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    length = length * 10 + digit;
  }
  return length;
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 11 || code === 12;
}

/**
 * Reads a request body whole, never holding more than `maxBodySize` bytes:
 * a `Content-Length` over the limit is refused before reading (413); a
 * chunked body is read chunk by chunk and abandoned as soon as it passes the
 * limit (413). A body the client cuts short gives `BadRequestError` (400).
 * With `limits`, the body must also fit the app's in-flight total (503) and
 * arrive within the read timeout (408), see src/body/budget.ts. Refusals
 * before reading are thrown; the rest rejects the promise.
 */
export function readBody(
  request: globalThis.Request,
  maxBodySize: number,
  limits?: BodyLimits,
): Uint8Array | Promise<Uint8Array> {
  if (request.bodyUsed) throw new Error("readBody: the request body was already read");
  return readUnreadBody(request, maxBodySize, limits, null, same, rethrow);
}

function same(bytes: Uint8Array): Uint8Array {
  return bytes;
}

function rethrow(error: unknown): never {
  throw error;
}

/**
 * `readBody` of a body nothing has read yet (the pipeline's, straight from Bun, src/serve/dispatch.ts),
 * going on with what comes after it: `next` with the bytes (at once for an empty body), `fail` with
 * why they could not be read or what `next` threw. The read's own promise settles with their
 * answer: no promise turn of its own between the bytes and the rest of the route
 * (docs/performance.md, "Issue 32, fifth pass: POST /json with steady counts"). Refusals before reading (413, 503, a bad
 * `Content-Length`) are thrown.
 */
export function readUnreadBody<C, R>(
  request: globalThis.Request,
  maxBodySize: number,
  limits: BodyLimits | undefined,
  carry: C,
  next: (bytes: Uint8Array, carry: C) => R,
  fail: (error: unknown, carry: C) => R,
): R | Promise<R> {
  const lengthHeader = request.headers.get("content-length");
  if (lengthHeader === null) {
    const stream = request.body;
    if (stream === null) return next(EMPTY, carry);
    return later(readLimited(stream, maxBodySize, limits), carry, next, fail);
  }
  const length = declaredLength(lengthHeader);
  if (length < 0) throw new BadRequestError("Invalid Content-Length header");
  if (length > maxBodySize) throw tooLarge();
  if (length === 0) return next(EMPTY, carry);
  if (limits === undefined) return new FramedRead(request, length, null, carry, next, fail).promise;
  // The whole declared length is reserved before a byte is read (docs/performance.md, "POST /json").
  if (!limits.budget.tryReserve(length)) throw overBudget();
  // A large body is read as a stream: Bun's whole-body buffer grows by doubling, so a 10 MiB
  // body held ~16 MiB until complete, more than the budget counted (measured in body-budget.test.ts).
  if (length > STREAM_ABOVE && request.body !== null)
    return later(readReservedStream(request.body, maxBodySize, length, limits), carry, next, fail);
  return new FramedRead(request, length, limits, carry, next, fail).promise;
}

/**
 * A large body with its declared length reserved, read as a stream, the reservation given back at
 * the end. A function of its own: a closure in `readUnreadBody` would make the engine create a scope
 * for it on every call, the small bodies' too (docs/performance.md, "Issue 32, sixth pass: the POST
 * shell").
 */
function readReservedStream(
  stream: ReadableStream<Uint8Array>,
  maxBodySize: number,
  length: number,
  limits: BodyLimits,
): Promise<Uint8Array> {
  return readLimited(stream, maxBodySize, { ...limits, reserved: true }).finally(() =>
    limits.budget.release(length),
  );
}

/**
 * One body read natively. Bun's HTTP parser frames the body by Content-Length and enforces
 * `maxRequestBodySize` itself, so the native whole-body read (`request.bytes()`) is safe and
 * fastest (and touching `request.body` first would make Bun build a stream this path never uses).
 * The read is its own deadline entry: the budget's share is released and the deadline dropped by
 * whichever comes first, the body or the timeout (a late body is then ignored; the 408 closes the
 * connection). Its promise is settled from outside (Bun's `bytes()` cannot be), so it is its own,
 * and it settles with what comes after the read (`next`, or `fail`): the rest of the route runs in
 * the reaction to Bun's bytes, with no promise turn of the pipeline's after it (docs/performance.md,
 * "Issue 32, fifth pass: POST /json with steady counts").
 */
class FramedRead<C, R> implements PendingRead {
  readonly promise: Promise<R>;
  deadline = 0;
  /** For the sweeper: its index in the list while watched (`unwatch`). */
  slot = -1;
  sweeper: Sweeper | null = null;
  /** The body arrived, failed or timed out: the first of them answers. */
  private ended = false;
  private resolve!: (answer: R | PromiseLike<R>) => void;
  private reject!: (error: unknown) => void;

  constructor(
    request: globalThis.Request,
    private readonly length: number,
    private readonly limits: BodyLimits | null,
    private readonly carry: C,
    private readonly next: (bytes: Uint8Array, carry: C) => R,
    private readonly fail: (error: unknown, carry: C) => R,
  ) {
    this.promise = new Promise<R>(capture);
    this.resolve = captured.resolve as (answer: R | PromiseLike<R>) => void;
    this.reject = captured.reject;
    // Held no longer than this: they keep the promise, and through it the answer, alive.
    captured.resolve = captured.reject = ignore;
    if (limits !== null && limits.readTimeoutMs > 0) watch(this, limits.readTimeoutMs);
    // One closure for both outcomes: Bun fulfils with the bytes and rejects with an error.
    const landed = (value: unknown) => this.landed(value);
    request.bytes().then(landed, landed);
  }

  private landed(value: unknown): void {
    if (value instanceof Uint8Array) this.arrived(value);
    else this.failed(new BadRequestError("The request body was cut short"));
  }

  /** Ends the read once: gives the reservation back and leaves the sweeper's list. */
  private settle(): boolean {
    if (this.ended) return false;
    this.ended = true;
    unwatch(this);
    if (this.limits !== null) this.limits.budget.release(this.length);
    return true;
  }

  private arrived(bytes: Uint8Array): void {
    if (!this.settle()) return;
    // Bun frames the body by its Content-Length, already checked against the limit.
    if (bytes.length > this.length) {
      this.answerError(tooLarge());
      return;
    }
    try {
      this.resolve(this.next(bytes, this.carry));
    } catch (error) {
      this.answerError(error);
    }
  }

  /** The answer to `error` (`fail`'s); what `fail` throws rejects the read. */
  private answerError(error: unknown): void {
    try {
      this.resolve(this.fail(error, this.carry));
    } catch (thrown) {
      this.reject(thrown);
    }
  }

  private failed(error: unknown): void {
    if (this.settle()) this.answerError(error);
  }

  expire(): void {
    if (this.settle()) this.answerError(readTimedOut());
  }
}

function ignore(): void {}

/**
 * The resolving functions of the promise just made with `new Promise(capture)`: one executor for
 * every read instead of a closure (and a scope for it) per read.
 */
const captured: { resolve: (value: unknown) => void; reject: (error: unknown) => void } = {
  resolve: ignore,
  reject: ignore,
};
function capture(resolve: (value: never) => void, reject: (error: unknown) => void): void {
  captured.resolve = resolve as (value: unknown) => void;
  captured.reject = reject;
}

async function readLimited(
  stream: ReadableStream<Uint8Array>,
  maxBodySize: number,
  limits: (BodyLimits & { reserved?: boolean }) | undefined,
): Promise<Uint8Array> {
  // `reserved`: the caller reserved the declared length already, so chunks are not counted again.
  const counts = limits !== undefined && limits.reserved !== true;
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let reserved = 0;
  let finished = false; // after a timeout the loop may still wake up: it must not reserve any more
  const stop = () => {
    // Stop reading: the rest of the upload is never buffered.
    reader.cancel().catch(() => {});
  };
  const read = async (): Promise<void> => {
    for (;;) {
      let result: Awaited<ReturnType<typeof reader.read>>;
      try {
        result = await reader.read();
      } catch {
        throw new BadRequestError("The request body was cut short");
      }
      if (result.done || finished) break;
      total += result.value.length;
      if (total > maxBodySize) {
        stop();
        throw tooLarge();
      }
      if (counts) {
        if (!limits.budget.tryReserve(result.value.length)) {
          stop();
          throw overBudget();
        }
        reserved += result.value.length;
      }
      chunks.push(result.value);
    }
  };
  try {
    await (limits === undefined ? read() : withDeadline(read(), limits.readTimeoutMs, stop));
  } finally {
    finished = true;
    if (counts) limits.budget.release(reserved);
  }
  if (chunks.length === 0) return EMPTY;
  if (chunks.length === 1) return chunks[0]!;
  return Buffer.concat(chunks, total);
}

/** The spec's `request.body`: a string when the bytes are valid UTF-8, else the bytes; `""` when empty. */
export function decodeBody(bytes: Uint8Array): string | Uint8Array {
  if (bytes.length === 0) return "";
  return strictUtf8(bytes) ?? bytes;
}
