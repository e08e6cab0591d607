/**
 * Which middlewares are a CORS pair's halves, for the layers that answer before a route's
 * middlewares run: a router's rate-limit refusals (429, 503) still pass through that router's CORS
 * pair, so that a browser page can read them, and a CORS preflight is not counted against a limit
 * (docs/rate-limiting.md#cors-and-preflights). A `WeakSet` of the functions themselves, which
 * `router.cors()` registers as ordinary before/after middlewares.
 */
import type { AfterMiddleware, BeforeMiddleware, MiddlewarePair } from "../router/middleware.ts";

const halves = new WeakSet<BeforeMiddleware | AfterMiddleware>();

export function markCorsPair<P extends MiddlewarePair>(pair: P): P {
  halves.add(pair.before);
  halves.add(pair.after);
  return pair;
}

export function isCorsMiddleware(fn: BeforeMiddleware | AfterMiddleware): boolean {
  return halves.has(fn);
}
