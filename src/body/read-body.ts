import { BadRequestError, HttpError } from "../response/errors.ts";
import type { BodyBudget } from "./budget.ts";

const EMPTY = new Uint8Array(0);
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

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
  expire(): void;
}

/**
 * How often the one deadline timer looks at the reads in progress: a 408 comes at most this much
 * later than the timeout, never earlier. Deadlines are counted in the timer's ticks rather than
 * read from a clock: no `performance.now()` per request (65 ns on a VM, docs/performance.md).
 */
const SWEEP_MS = 50;
const pendingReads = new Set<PendingRead>();
let sweeper: ReturnType<typeof setInterval> | null = null;
let tick = 0;

function sweep(): void {
  tick++;
  for (const read of pendingReads) {
    if (read.deadline <= tick) {
      pendingReads.delete(read);
      read.expire();
    }
  }
  if (pendingReads.size === 0 && sweeper !== null) {
    clearInterval(sweeper);
    sweeper = null;
  }
}

/** Registers a read that must finish within `ms`; `expire` runs once it has not. */
function watch(ms: number, expire: () => void): PendingRead {
  // +1: the current tick is already partly over, so a read is never expired early.
  const pending: PendingRead = { deadline: tick + Math.ceil(ms / SWEEP_MS) + 1, expire };
  pendingReads.add(pending);
  if (sweeper === null) {
    sweeper = setInterval(sweep, SWEEP_MS);
    // The server keeps the process alive; a pending body read alone must not.
    sweeper.unref?.();
  }
  return pending;
}

/**
 * `read`, or a 408 once `ms` have passed. One shared timer checks every read in progress, instead
 * of a `setTimeout`, a `clearTimeout` and a `Promise.race` per request: those were about 4 % of
 * the server's time on a small `POST /json` (`bun bench/profile.ts json webfw-bun`, docs/performance.md).
 */
function withDeadline<T>(read: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  if (ms <= 0) return read;
  return new Promise<T>((resolve, reject) => {
    const pending = watch(ms, () => {
      onTimeout();
      reject(readTimedOut());
    });
    read.then(
      (value) => {
        pendingReads.delete(pending);
        resolve(value);
      },
      (error) => {
        pendingReads.delete(pending);
        reject(error);
      },
    );
  });
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
  const lengthHeader = request.headers.get("content-length");
  if (lengthHeader === null) {
    const stream = request.body;
    return stream === null ? EMPTY : readLimited(stream, maxBodySize, limits);
  }
  if (!/^\d+$/.test(lengthHeader.trim())) throw new BadRequestError("Invalid Content-Length header");
  const length = Number(lengthHeader);
  if (length > maxBodySize) throw tooLarge();
  if (length === 0) return EMPTY;
  if (limits === undefined) return readFramed(request, maxBodySize, length, null);
  if (!limits.budget.tryReserve(length)) throw overBudget();
  // A large body is read as a stream: Bun's whole-body buffer grows by doubling, so a 10 MiB
  // body held ~16 MiB until complete, more than the budget counted (measured in body-budget.test.ts).
  if (length > STREAM_ABOVE && request.body !== null) {
    return readLimited(request.body, maxBodySize, { ...limits, reserved: true }).finally(() =>
      limits.budget.release(length),
    );
  }
  return readFramed(request, maxBodySize, length, limits);
}

/**
 * Bun's HTTP parser frames the body by Content-Length, so the native whole-body read is safe and
 * fastest (and touching `request.body` first would make Bun build a stream this path never uses).
 * One promise per request: the budget's share is released and the deadline dropped by whichever
 * comes first, the body or the timeout (a late body is then ignored; the 408 closes the connection).
 */
function readFramed(
  request: globalThis.Request,
  maxBodySize: number,
  length: number,
  limits: BodyLimits | null,
): Promise<Uint8Array> {
  return new Promise<Uint8Array>((resolve, reject) => {
    let pending: PendingRead | null = null;
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      if (limits !== null) limits.budget.release(length);
      if (pending !== null) pendingReads.delete(pending);
      return true;
    };
    if (limits !== null && limits.readTimeoutMs > 0) {
      pending = watch(limits.readTimeoutMs, () => {
        if (settle()) reject(readTimedOut());
      });
    }
    request.bytes().then(
      (bytes) => {
        if (!settle()) return;
        if (bytes.length > maxBodySize) reject(tooLarge());
        else resolve(bytes);
      },
      () => {
        if (settle()) reject(new BadRequestError("The request body was cut short"));
      },
    );
  });
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
  try {
    return utf8.decode(bytes);
  } catch {
    return bytes;
  }
}
