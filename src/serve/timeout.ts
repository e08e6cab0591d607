/** A handler's time limit: the request gets 503 when its handler is not done in time. */
import { HttpError } from "../response/errors.ts";

/** The answer to a handler that did not finish in time (docs/errors.md). */
export class RequestTimeoutError extends HttpError {
  constructor() {
    // 503, not 504: no gateway is involved; the server itself could not answer in time (as Go's TimeoutHandler).
    super(503, "Service Unavailable: the request timed out");
    this.name = "RequestTimeoutError";
  }
}

/** Refuses what `setTimeout` would silently misread (negative, NaN, Infinity, strings). */
export function checkTimeout(value: unknown, name: string): number {
  if (value === undefined) return 0;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 2 ** 31 - 1) {
    throw new RangeError(
      `${name} must be a number of milliseconds from 0 (no limit) to 2^31-1, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * The handler's pending value raced against a timer: still pending after `ms`, it rejects with
 * `RequestTimeoutError`. Only a thenable value is raced (the pipeline's promise rule,
 * docs/architecture.md): a plain value is already there, and a route without a limit never
 * calls this. The handler's own work is not cancelled (JavaScript cannot stop it).
 */
export function withinTime<T>(pending: PromiseLike<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RequestTimeoutError()), ms);
  });
  return Promise.race([pending, expired]).finally(() => clearTimeout(timer));
}
