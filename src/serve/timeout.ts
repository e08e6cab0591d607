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

type Handler<R, T> = (request: R) => T;

/**
 * The handler, raced against a timer when `ms > 0`: a returned promise that is
 * still pending after `ms` rejects with `RequestTimeoutError`. The handler's
 * own work is not cancelled (JavaScript cannot stop it); a synchronous return
 * value is passed through. `ms` 0 returns the handler itself, so a route
 * without a timeout pays nothing.
 */
export function withTimeout<R, T>(handler: Handler<R, T>, ms: number): Handler<R, T | Promise<unknown>> {
  if (!(ms > 0)) return handler;
  return (request) => {
    const value = handler(request);
    if (!(value instanceof Promise)) return value;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RequestTimeoutError()), ms);
    });
    return Promise.race([value, expired]).finally(() => clearTimeout(timer));
  };
}
