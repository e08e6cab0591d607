import { matchPath } from "../http/request-target.ts";
import { requestIdOf } from "../request-id/id.ts";
import type { Dispatcher } from "../serve/dispatch.ts";
import { logger } from "./logger.ts";

type WebResponse = globalThis.Response;

/**
 * Wraps a dispatcher so that every request leaves one access-log line
 * (method, path, status, duration, request id) at INFO. Only built when access logging is
 * on, so a server without it pays nothing.
 */
export function withAccessLog(dispatcher: Dispatcher): Dispatcher {
  return (raw, server, params) => {
    const started = performance.now();
    const log = (response: WebResponse): WebResponse => {
      const duration = performance.now() - started;
      // The id the request-id layer gave it (or, with request ids off, one made now for this line).
      logger.accessLog(raw.method, matchPath(raw.url), response.status, duration, requestIdOf(raw));
      return response;
    };
    const result = dispatcher(raw, server, params);
    return result instanceof Promise ? result.then(log) : log(result);
  };
}
