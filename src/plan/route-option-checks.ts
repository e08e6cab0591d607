import { checkConditionalOptions } from "../conditional/options.ts";
import type { RouteRecord } from "../router/route.ts";

/**
 * Route options that cannot go together, refused when the app is built (a clear error at
 * start rather than a route that silently ignores one of them).
 */
export function checkRouteOptions(route: RouteRecord): void {
  const where = `${route.method} ${route.path}`;
  const { rawBody, body, offload } = route.options;
  checkConditionalOptions(route.options, where);
  if (body === "stream" && offload === true) {
    throw new Error(`${where}: body: "stream" cannot be offloaded (a body stream cannot cross to a Worker)`);
  }
  if (body === "stream" && rawBody === true) {
    throw new Error(
      `${where}: give body: "stream" (request.parts()) or rawBody (request.raw.body), not both`,
    );
  }
  if (typeof body === "string" && body !== "stream") {
    throw new Error(`${where}: body must be a schema or "stream", got ${JSON.stringify(body)}`);
  }
  if (rawBody === true && body !== undefined) {
    throw new Error(`${where}: rawBody leaves the body unread, so it cannot also be validated with body`);
  }
  if (rawBody === true && offload === true) {
    // The Worker gets a copy of the request's bytes; an unread stream cannot cross threads.
    throw new Error(`${where}: rawBody cannot be offloaded (a body stream cannot cross to a Worker)`);
  }
}
