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

/**
 * A feature that works on every request as a before/after pair (CORS, sessions): a value, made
 * without any app, that any router installs (`installPair`). The before half runs first, with
 * the app's other global middlewares; the after half sees every response, errors included.
 */
export interface MiddlewarePair {
  before: BeforeMiddleware;
  after: AfterMiddleware;
}

/** The part of a router that installing a pair needs (the app or a `SubRouter`). */
export interface MiddlewareTarget {
  beforeRequest(fn: BeforeMiddleware): unknown;
  afterRequest(fn: AfterMiddleware): unknown;
}

/** Registers both halves of `pair` on `target`, for every route of it. */
export function installPair(target: MiddlewareTarget, pair: MiddlewarePair): void {
  target.beforeRequest(pair.before);
  target.afterRequest(pair.after);
}
