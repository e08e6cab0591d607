import { clientAddressOf } from "../http/client-address.ts";
import { contextOf, type DispatchContext } from "../http/request-context.ts";
import { requestIdOf } from "../http/request-id.ts";
import { matchPath } from "../http/request-target.ts";
import type { RouteInfo } from "../observability/route-info.ts";
import type { Dispatcher } from "../serve/dispatch.ts";
import { logger } from "./logger.ts";

type WebResponse = globalThis.Response;

/** The request's trace and span ids, when tracing is on (src/observability/server-span.ts). */
export type TraceIdReader = (context: DispatchContext | undefined) => { traceId?: string; spanId?: string };

/**
 * Wraps a dispatcher so that every request leaves one access-log line
 * (method, path, route, status, duration, the client's address, request id, and the trace ids when
 * tracing is on) at INFO. Only built when access logging is on, so a server
 * without it pays nothing. `route` is absent for answers no route gave (404, static files).
 */
export function withAccessLog(
  dispatcher: Dispatcher,
  route?: RouteInfo,
  traceIds?: TraceIdReader | null,
): Dispatcher {
  const pattern = route?.pattern ?? undefined;
  return (raw, server, params, context) => {
    const started = performance.now();
    // The request's own context, so that the id and the address the route's layers and handler
    // settle on are the ones this line writes (src/http/request-id.ts, src/http/client-address.ts).
    const own = contextOf(context);
    const log = (response: WebResponse): WebResponse => {
      const duration = performance.now() - started;
      const ids = traceIds?.(own);
      // The id the request-id layer gave it (or, with request ids off, one made now for this line).
      // An upgrade hands Bun no response (src/websocket/mount.ts reports it as `{ status: 101 }`).
      logger.accessLog(raw.method, matchPath(raw.url), response.status, duration, {
        route: pattern,
        // The same address every reader sees (docs/client-address.md), in full (rate limits group IPv6).
        client: clientAddressOf(raw, server, own),
        requestId: requestIdOf(raw, own),
        traceId: ids?.traceId,
        spanId: ids?.spanId,
      });
      return response;
    };
    const result = dispatcher(raw, server, params, own);
    return result instanceof Promise ? result.then(log) : log(result);
  };
}
