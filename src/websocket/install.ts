/**
 * The WebSocket routes of one build, compiled and bound to a runtime (src/websocket/runtime.ts).
 * Imported by the mount (src/websocket/mount.ts) only for an app with WebSocket routes.
 */
import type { RouteInfo } from "../observability/route-info.ts";
import { planRoute } from "../plan/plan.ts";
import type { RouterTree } from "../plan/tree.ts";
import { patternParams } from "../router/route.ts";
import { compileRoute, type Dispatcher, type PipelineConfig } from "../serve/dispatch.ts";
import type { RouteTable } from "../serve/runtime.ts";
import type { TopicHub } from "../topics/hub.ts";
import type { ResolvedWebSocketOptions } from "./options.ts";
import { isUpgradeRequest, WebSocketRuntime } from "./runtime.ts";
import { topicOf } from "./topic.ts";

export interface MountInput {
  /** The router tree, walked once by the build (src/plan/tree.ts). */
  tree: RouterTree;
  options: ResolvedWebSocketOptions;
  /** The app's topics: where `broadcast` and `app.publish` go. */
  hub: TopicHub;
  table: RouteTable;
  /** Const GET responses that Bun would serve without JS; a WebSocket route on the same path must see its requests. */
  statics: Map<string, globalThis.Response>;
  config: PipelineConfig;
  /** Wraps the upgrade dispatcher like the others (the access log: an upgrade is logged with status 101). */
  wrap?: (dispatcher: Dispatcher, route?: RouteInfo) => Dispatcher;
}

/**
 * Puts every WebSocket route of the router tree into the route table as the
 * GET of its path, so all three matching engines find it. The upgrade request
 * runs the pipeline of a GET there (request-header rules, before-request
 * middlewares, authentication, typed args, path and query params) and is then
 * upgraded; after-request middlewares do not run, since an upgrade has no
 * response. A plain GET route on the same path still answers requests
 * without `Upgrade: websocket`. Returns `null` when the app has no WebSocket route.
 */
export function mountWebSockets(input: MountInput): WebSocketRuntime | null {
  const owned = input.tree.websockets;
  if (owned.length === 0) return null;
  const runtime = new WebSocketRuntime(input.options, input.hub, input.config.tracing ?? null);
  for (const { route, chain } of owned) {
    const pattern = route.path;
    const names = patternParams(pattern);
    // The same planner as HTTP routes (src/plan/plan.ts): a GET of its path, with no after-middlewares.
    const plan = planRoute(input.tree, chain, {
      pattern,
      method: "GET",
      handler: (request) => runtime.upgrade(route, request, topicOf(pattern, names, request.pathParams)),
      options: { authRequired: route.options.authRequired, args: route.options.args },
      label: `WebSocket ${pattern}`,
    });
    // An upgrade has no response for after-middlewares to see.
    plan.after = [];
    const methods = input.table.get(pattern) ?? new Map<string, Dispatcher>();
    input.table.set(pattern, methods);
    input.statics.delete(`GET ${pattern}`);
    const upgrade = (input.wrap ?? same)(marked(compileRoute(plan, input.config), runtime), {
      method: "GET",
      pattern,
    });
    methods.set("GET", upgradeDispatcher(upgrade, methods.get("GET") ?? null));
  }
  return runtime;
}

/**
 * The GET of a WebSocket path: upgrade requests go through the upgrade
 * pipeline (which answers 401, 400, a middleware's response… or upgrades, and
 * then Bun must get no response at all); other requests go to the path's own
 * GET route, or get 426 Upgrade Required.
 */
function upgradeDispatcher(upgrade: Dispatcher, plain: Dispatcher | null): Dispatcher {
  return (raw, server, params, context) => {
    if (plain !== null && !isUpgradeRequest(raw)) return plain(raw, server, params, context);
    const result = upgrade(raw, server, params, context);
    return result instanceof Promise ? result.then(unmark) : unmark(result);
  };
}

/**
 * Stands for "switched protocols" between the upgrade pipeline and Bun: only
 * its status is ever read (by the access log). Bun itself must get `undefined`
 * from a handler that upgraded, which the Dispatcher type has no room for.
 */
const SWITCHED = Object.freeze({ status: 101 }) as unknown as globalThis.Response;

function marked(upgrade: Dispatcher, runtime: WebSocketRuntime): Dispatcher {
  const mark = (raw: globalThis.Request, response: globalThis.Response) =>
    runtime.upgraded.has(raw) ? SWITCHED : response;
  return (raw, server, params, context) => {
    const result = upgrade(raw, server, params, context);
    return result instanceof Promise ? result.then((response) => mark(raw, response)) : mark(raw, result);
  };
}

function unmark(response: globalThis.Response): globalThis.Response {
  return response === SWITCHED ? (undefined as unknown as globalThis.Response) : response;
}

const same = (dispatcher: Dispatcher): Dispatcher => dispatcher;
