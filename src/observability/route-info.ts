/**
 * What an observing layer (access log, server span, metrics) is told about
 * the route it wraps, at build time: so that per request it only reads the
 * status and the clock.
 */
import type { Dispatcher } from "../serve/dispatch.ts";

export type { Dispatcher };

export interface RouteInfo {
  /** The method the route was registered for (`GET` also serves `HEAD`). */
  method: string;
  /** The route pattern (`/users/:id`), or `null` for answers no route gave (404, the static fallback). */
  pattern: string | null;
}

/** A layer around a route's dispatcher; `route` is absent where the caller knows none. */
export type DispatcherWrap = (dispatcher: Dispatcher, route?: RouteInfo) => Dispatcher;

/** Composes layers; the first is the outermost (it sees the request first and the response last). */
export function composeWraps(wraps: readonly DispatcherWrap[]): DispatcherWrap {
  if (wraps.length === 0) return (dispatcher) => dispatcher;
  if (wraps.length === 1) return wraps[0] as DispatcherWrap;
  return (dispatcher, route) => {
    let wrapped = dispatcher;
    for (let i = wraps.length - 1; i >= 0; i--) wrapped = (wraps[i] as DispatcherWrap)(wrapped, route);
    return wrapped;
  };
}
