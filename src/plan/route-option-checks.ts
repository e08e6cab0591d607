import { checkConditionalOptions } from "../conditional/options.ts";
import { refuseRenamedRouteOptions } from "../router/renamed-options.ts";
import type { RouteRecord } from "../router/route.ts";

/**
 * Route options that cannot go together, refused when the app is built (a clear error at
 * start rather than a route that silently ignores one of them).
 */
export function checkRouteOptions(route: RouteRecord): void {
  const where = `${route.method} ${route.path}`;
  const { body, offload } = route.options;
  refuseRenamedRouteOptions(route.options, where);
  checkConditionalOptions(route.options, where);
  if (body === "stream" && offload === true) {
    // The Worker gets a copy of the request's bytes; an unread stream cannot cross threads.
    throw new Error(`${where}: body: "stream" cannot be offloaded (a body stream cannot cross to a Worker)`);
  }
  if (typeof body === "string" && body !== "stream") {
    throw new Error(`${where}: body must be a schema or "stream", got ${JSON.stringify(body)}`);
  }
}
