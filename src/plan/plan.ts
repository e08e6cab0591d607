/**
 * The one planner: a route (HTTP, WebSocket or built-in) and its chain of
 * routers become the `RoutePlan` its dispatcher is compiled from
 * (src/serve/dispatch.ts). Checks that depend on the chain (authRequired
 * without authentication, args that are not specs) fail the start here.
 */
import type { ArgSpec, RouteArgShape } from "../args/t.ts";
import type { Request } from "../http/request.ts";
import { checkStatusOption, withDefaultStatus } from "../response/default-status.ts";
import type { BodySchema } from "../router/route.ts";
import { patternParams } from "../router/route.ts";
import type { RouterBase } from "../router/router-base.ts";
import { timeLimitOf } from "../router/time-limit.ts";
import type { RoutePlan } from "../serve/dispatch.ts";
import { checkTimeout } from "../serve/timeout.ts";
import { type RouterTree, scopeOf } from "./tree.ts";

/** The options of a route that shape its plan (a subset of `RouteOptions`, shared with WebSocket routes). */
export interface PlannedOptions {
  authRequired?: boolean;
  args?: RouteArgShape;
  body?: BodySchema<unknown> | "stream";
  timeoutMs?: number;
  /** The success status a plain value is answered with (src/response/default-status.ts). */
  status?: number;
}

export interface RouteSpec {
  pattern: string;
  method: string;
  handler: (request: Request) => unknown;
  options: PlannedOptions;
  /** How errors name the route: `GET /users/:id`, `WebSocket /chat`. */
  label: string;
}

/** The plan of `spec` registered under `chain` (outermost router first). */
export function planRoute(tree: RouterTree, chain: RouterBase[], spec: RouteSpec): RoutePlan {
  const scope = scopeOf(tree, chain, spec.pattern);
  const { options } = spec;
  const args =
    options.args && Object.keys(options.args).length > 0
      ? (options.args as Record<string, ArgSpec<unknown>>)
      : null;
  const plan: RoutePlan = {
    pattern: spec.pattern,
    method: spec.method,
    handler: withDefaultStatus(spec.handler, checkStatusOption(options.status, spec.label)),
    before: scope.before,
    after: scope.after,
    auth: scope.auth,
    authRequired: options.authRequired === true,
    args,
    pathParamNames: patternParams(spec.pattern),
    // `body: "stream"` leaves the body unread: the handler reads `request.parts()` or `request.raw.body`.
    body: options.body === "stream" ? null : (options.body ?? null),
    rawBody: options.body === "stream",
    // The route's own limit, else its routers', else the app's: one name at every level.
    timeoutMs: timeLimitOf(
      chain,
      options.timeoutMs === undefined
        ? undefined
        : checkTimeout(options.timeoutMs, `timeoutMs of ${spec.label}`),
    ),
    routerDependencies: scope.routerDependencies,
  };
  if (plan.authRequired && plan.auth === null) {
    throw new Error(`${spec.label} has authRequired but no authentication is configured`);
  }
  for (const [name, arg] of Object.entries(args ?? {})) {
    if (typeof (arg as ArgSpec<unknown> | undefined)?.parse !== "function") {
      throw new TypeError(`args.${name} of ${spec.label} is not a t.* spec`);
    }
  }
  return plan;
}
