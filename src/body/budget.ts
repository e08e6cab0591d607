/**
 * The bytes of request bodies buffered across ALL requests at once (issue
 * #13, finding 4). `maxBodySize` bounds one body; without a total, 200
 * connections each stalling one byte short of a 10 MiB body pinned 2 GiB.
 * A body reserves its declared `Content-Length` before a byte is read (a
 * chunked body reserves chunk by chunk) and gives it back once read; a body
 * that does not fit gets 503 at once and its connection is closed, so the
 * rest of it is never buffered.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit <= 0)
      throw new TypeError("maxBodyBuffer must be a positive integer");
  }

  /** Bytes reserved right now. */
  get inUse(): number {
    return this.used;
  }

  tryReserve(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

const MiB = 1024 * 1024;

/**
 * One sixteenth of the memory this process may use, at least 64 MiB and at most 1 GiB (per
 * process). `process.constrainedMemory()` is the cgroup (container) limit where Bun can read one,
 * which `os.totalmem()` is not (it reports the host's); it gives the machine's memory otherwise, 0
 * or undefined where it knows nothing (then `os.totalmem()`). It also spares every server loading
 * `node:os` at start (idle memory, docs/performance.md).
 */
export function defaultBodyBuffer(): number {
  const memory = process.constrainedMemory?.() || (require("node:os") as typeof import("node:os")).totalmem();
  return Math.min(1024 * MiB, Math.max(64 * MiB, Math.floor(memory / 16)));
}

/** Default time a whole body may take to arrive, from the first read: 30 s. */
export const DEFAULT_BODY_READ_TIMEOUT_MS = 30_000;
