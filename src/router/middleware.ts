import type { Request } from "../http/request.ts";
import type { Response } from "../response/response.ts";

// `void` lets a middleware without a `return` type-check; `undefined` alone would refuse it.
// biome-ignore lint/suspicious/noConfusingVoidType: see the line above
type Nothing = undefined | void;
type Awaitable<T> = T | Promise<T>;

/**
 * Runs before the handler. Returns the (possibly changed) request, nothing to
 * continue, or a response, which is sent at once: the remaining before
 * middlewares, the handler and the after middlewares are skipped.
 */
export type BeforeMiddleware = (
  request: Request,
) => Awaitable<Request | Response | globalThis.Response | Nothing>;

/** Runs after the handler with its response (and the request); returns the response to send. */
export type AfterMiddleware = (
  response: Response,
  request: Request,
) => Awaitable<Response | globalThis.Response | Nothing>;

export interface ScopedMiddleware<F> {
  /** `null`: every route of the router; else the route pattern it applies to (every method). */
  path: string | null;
  fn: F;
}
