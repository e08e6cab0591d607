/**
 * The answers the framework gives by itself (404, 405 with `Allow`, 400 for a
 * refused target, 204 for OPTIONS) still pass through the app-global
 * middlewares and response headers, so that CORS, sessions and header rules
 * apply to them as to any route.
 */
import type { RouteInfo } from "../observability/route-info.ts";
import { HttpError } from "../response/errors.ts";
import type { AfterMiddleware, BeforeMiddleware } from "../router/middleware.ts";
import { builtInPlan, compileRoute, type Dispatcher, type PipelineConfig } from "./dispatch.ts";

/** The middlewares around a framework answer: the app-global ones, or a path's (`scopeFor`). */
export interface AnswerScope {
  before: BeforeMiddleware[];
  after: AfterMiddleware[];
}

/**
 * Makes (and caches) the dispatcher of one framework answer: `status`, its headers and message.
 * `bare`: a request refused before routing (bad Host or target) gets only the response headers,
 * since no middleware may act on a request whose target is not trusted. `scope`: the 204/405 of
 * a path that exists runs that path's middlewares (a sub-router's CORS answers its preflights).
 * `pattern`: the route pattern the path matched (204/405, a bad parameter's 400), which spans,
 * metrics and the access log then name like the route's own answers (OTel's `http.route`).
 */
export type ErrorDispatchers = (
  status: number,
  headers?: Record<string, string>,
  message?: string,
  bare?: boolean,
  scope?: AnswerScope,
  pattern?: string,
) => Dispatcher;

export function errorDispatchers(
  before: BeforeMiddleware[],
  after: AfterMiddleware[],
  config: PipelineConfig,
  wrap: (dispatcher: Dispatcher, route?: RouteInfo) => Dispatcher,
): ErrorDispatchers {
  const cache = new Map<string, Dispatcher>();
  const scopeIds = new WeakMap<AnswerScope, number>();
  return (status, headers = {}, message, bare = false, scope, pattern) => {
    let scopeId = 0;
    if (scope) {
      scopeId = scopeIds.get(scope) ?? scopeIds.set(scope, cache.size + 1).get(scope) ?? 0;
    }
    const key = `${status} ${JSON.stringify(headers)} ${message ?? ""} ${bare} ${scopeId} ${pattern ?? ""}`;
    let dispatcher = cache.get(key);
    if (!dispatcher) {
      const handler =
        status === 204
          ? () => new globalThis.Response(null, { status: 204, headers })
          : () => {
              throw new HttpError(status, message, headers);
            };
      dispatcher = wrap(
        compileRoute(
          builtInPlan(
            "",
            "GET",
            handler,
            bare ? [] : (scope?.before ?? before),
            bare ? [] : (scope?.after ?? after),
          ),
          config,
        ),
        // No method of its own: every request's method is one the pattern has no route for.
        pattern === undefined ? undefined : { method: "", pattern },
      );
      // Bounded: the key holds the Allow header and the message, which vary only with the app's routes.
      if (cache.size < 256) cache.set(key, dispatcher);
    }
    return dispatcher;
  };
}
