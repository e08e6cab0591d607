import { strictUtf8 } from "../http/utf8.ts";
import { BadRequestError, HttpError } from "../response/errors.ts";
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

/** A body read with a deadline, waiting for the sweeper. */
interface PendingRead {
  /** The sweeper tick at which it expires. */
  deadline: number;
  /** Its index in the sweeper's list while watched, -1 once it is not. */
  slot: number;
  expire(): void;
}

/**
 * How often the one deadline timer looks at the reads in progress: a 408 comes at most this much
 * later than the timeout, never earlier. Deadlines are counted in the timer's ticks rather than
 * read from a clock: no `performance.now()` per request (65 ns on a VM, docs/performance.md).
 */
const SWEEP_MS = 50;
/**
 * The reads being watched. A read leaves the list the moment it ends, by swapping the last entry
 * into its place (it knows its index, `slot`): no `Set` insert and delete per request (hashing an
 * object key twice), and nothing of a finished read, its bytes included, is held until the next
 * tick (under load that kept a tick's worth of bodies alive into the old generation,
 * docs/performance.md, "POST /json").
 */
const pendingReads: PendingRead[] = [];
let sweeper: ReturnType<typeof setInterval> | null = null;
let tick = 0;

function sweep(): void {
  tick++;
  // From the end: `unwatch` moves the last entry, one already looked at, into the freed index.
  for (let i = pendingReads.length - 1; i >= 0; i--) {
    const read = pendingReads[i];
    if (read !== undefined && read.deadline <= tick) {
      unwatch(read);
      read.expire();
    }
  }
  if (pendingReads.length === 0 && sweeper !== null) {
    clearInterval(sweeper);
    sweeper = null;
  }
}

/** Registers `read` to expire `ms` from now unless it leaves the list (`unwatch`) first. */
function watch(read: PendingRead, ms: number): void {
  // +1: the current tick is already partly over, so a read is never expired early.
  read.deadline = tick + Math.ceil(ms / SWEEP_MS) + 1;
  read.slot = pendingReads.length;
  pendingReads.push(read);
  if (sweeper === null) {
    sweeper = setInterval(sweep, SWEEP_MS);
    // The server keeps the process alive; a pending body read alone must not.
    sweeper.unref?.();
  }
}

/** Takes `read` off the list (at once, in O(1)); a read that is not on it is left alone. */
function unwatch(read: PendingRead): void {
  const index = read.slot;
  if (index < 0) return;
  read.slot = -1;
  const last = pendingReads.pop() as PendingRead;
  if (last !== read) {
    pendingReads[index] = last;
    last.slot = index;
  }
}

/** `read`, or a 408 once `ms` have passed (see `sweep`); `onTimeout` stops the read. */
function withDeadline<T>(read: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  if (ms <= 0) return read;
  return new Promise<T>((resolve, reject) => {
    const pending: PendingRead = {
      deadline: 0,
      slot: -1,
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
 * What a body read hands its outcome to, with the `context` it was given: the bytes, or the error
 * that ended the read (413 past the limit, 400 cut short, 408 too slow, 503 over the in-flight
 * total). Its answer is what the read's promise resolves with, so a caller that continues from
 * here (the request pipeline, src/serve/dispatch.ts) needs no promise of its own on top.
 */
export interface BodySink<C, R> {
  arrived(bytes: Uint8Array, context: C): R | PromiseLike<R>;
  failed(error: unknown, context: C): R | PromiseLike<R>;
}

/** `readBody`'s sink: the bytes themselves, the error as a rejection. */
const BYTES: BodySink<undefined, Uint8Array> = {
  arrived: (bytes) => bytes,
  failed(error) {
    throw error;
  },
};

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
  return readBodyThen(request, maxBodySize, limits, BYTES, undefined) as Uint8Array | Promise<Uint8Array>;
}

/**
 * `readBody`, its outcome handed to `sink` with `context`: the sink's answer, at once for an empty
 * body, else the promise of it. Refusals before reading are thrown, not given to the sink. For a
 * body nothing has read yet (the pipeline's, straight from Bun): it does not ask.
 */
export function readBodyThen<C, R>(
  request: globalThis.Request,
  maxBodySize: number,
  limits: BodyLimits | undefined,
  sink: BodySink<C, R>,
  context: C,
): R | PromiseLike<R> {
  const lengthHeader = request.headers.get("content-length");
  if (lengthHeader === null) {
    const stream = request.body;
    if (stream === null) return sink.arrived(EMPTY, context);
    return thenSink(readLimited(stream, maxBodySize, limits), sink, context);
  }
  const length = declaredLength(lengthHeader);
  if (length < 0) throw new BadRequestError("Invalid Content-Length header");
  if (length > maxBodySize) throw tooLarge();
  if (length === 0) return sink.arrived(EMPTY, context);
  if (limits === undefined) return new FramedRead(request, maxBodySize, length, null, sink, context).promise;
  // The whole declared length is reserved before a byte is read (docs/performance.md, "POST /json").
  if (!limits.budget.tryReserve(length)) throw overBudget();
  // A large body is read as a stream: Bun's whole-body buffer grows by doubling, so a 10 MiB
  // body held ~16 MiB until complete, more than the budget counted (measured in body-budget.test.ts).
  if (length > STREAM_ABOVE && request.body !== null) {
    const read = readLimited(request.body, maxBodySize, { ...limits, reserved: true }).finally(() =>
      limits.budget.release(length),
    );
    return thenSink(read, sink, context);
  }
  return new FramedRead(request, maxBodySize, length, limits, sink, context).promise;
}

function thenSink<C, R>(read: Promise<Uint8Array>, sink: BodySink<C, R>, context: C): Promise<R> {
  return read.then(
    (bytes) => sink.arrived(bytes, context),
    (error) => sink.failed(error, context),
  );
}

/** The read whose promise is being made: `capture` (one executor for all reads, no closure each). */
let capturing: FramedRead<unknown, unknown> | null = null;

function capture<R>(resolve: (answer: R | PromiseLike<R>) => void, reject: (error: unknown) => void): void {
  const read = capturing as unknown as FramedRead<unknown, R>;
  capturing = null;
  read.resolve = resolve;
  read.reject = reject;
}

/**
 * One body read natively. Bun's HTTP parser frames the body by Content-Length and enforces
 * `maxRequestBodySize` itself, so the native whole-body read (`request.bytes()`) is safe and
 * fastest (and touching `request.body` first would make Bun build a stream this path never uses).
 * One promise per request, resolved with the sink's answer (so the pipeline after the body adds
 * no promise of its own), and the read is its own deadline entry (no closures of its own): the
 * budget's share is released and the deadline dropped by whichever comes first, the body or the
 * timeout (a late body is then ignored; the 408 closes the connection).
 */
class FramedRead<C, R> implements PendingRead {
  readonly promise: Promise<R>;
  deadline = 0;
  /** For the sweeper: its index in the list while watched (`unwatch`). */
  slot = -1;
  /** The body arrived, failed or timed out: the first of them answers. */
  private ended = false;
  /** Set by `capture` while the promise is made. */
  resolve!: (answer: R | PromiseLike<R>) => void;
  reject!: (error: unknown) => void;

  constructor(
    request: globalThis.Request,
    private readonly maxBodySize: number,
    private readonly length: number,
    private readonly limits: BodyLimits | null,
    private readonly sink: BodySink<C, R>,
    private readonly context: C,
  ) {
    capturing = this as unknown as FramedRead<unknown, unknown>;
    this.promise = new Promise<R>(capture);
    if (limits !== null && limits.readTimeoutMs > 0) watch(this, limits.readTimeoutMs);
    request.bytes().then(
      (bytes) => this.arrived(bytes),
      () => this.failed(new BadRequestError("The request body was cut short")),
    );
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
    if (bytes.length > this.maxBodySize) {
      this.answer(tooLarge());
      return;
    }
    try {
      this.resolve(this.sink.arrived(bytes, this.context));
    } catch (error) {
      this.reject(error);
    }
  }

  private failed(error: unknown): void {
    if (this.settle()) this.answer(error);
  }

  expire(): void {
    if (this.settle()) this.answer(readTimedOut());
  }

  /** The sink's answer to `error` (its own failure rejects the promise). */
  private answer(error: unknown): void {
    try {
      this.resolve(this.sink.failed(error, this.context));
    } catch (thrown) {
      this.reject(thrown);
    }
  }
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
