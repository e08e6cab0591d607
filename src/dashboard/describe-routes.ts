/**
 * What runs around each route, as the dashboard's route view shows it (docs/dashboard.md): the
 * planner's own answer (src/plan/plan.ts), so the page cannot disagree with what the build runs.
 */

import { planRoute } from "../plan/plan.ts";
import type { RouterTree } from "../plan/tree.ts";
import type { RouteRecord } from "../router/route.ts";
import { routeSourceOf } from "../router/route-source.ts";

export interface RouteView {
  method: string;
  pattern: string;
  handler: string;
  /** `file:line` where the route was registered, when known. */
  source: string | null;
  before: string[];
  after: string[];
  auth: string | null;
  authRequired: boolean;
  rateLimit: string | null;
  offload: boolean;
  cache: string | null;
  timeoutMs: number | null;
  mcp: boolean;
  kind: "http" | "websocket" | "built-in";
}

/** A function's name, or `fallback` for an arrow function written inline. */
const nameOf = (fn: unknown, fallback: string): string =>
  typeof fn === "function" && fn.name !== "" ? fn.name.replace(/^bound /, "") : fallback;
const names = (fns: readonly unknown[], kind: string): string[] =>
  fns.map((fn, i) => nameOf(fn, `${kind} #${i + 1}`));

export function describeRoutes(tree: RouterTree): RouteView[] {
  const views: RouteView[] = [];
  for (const { route, chain } of tree.routes) {
    const plan = planRoute(tree, chain, {
      pattern: route.path,
      method: route.method,
      handler: route.handler as never,
      options: route.options,
      label: `${route.method} ${route.path}`,
    });
    views.push({
      method: route.method,
      pattern: route.path,
      handler: nameOf(route.handler, "handler"),
      source: routeSourceOf(route) ?? null,
      before: names(plan.before, "before"),
      after: names(plan.after, "after"),
      auth: plan.auth === null ? null : (plan.auth.constructor?.name ?? "authentication"),
      authRequired: plan.authRequired,
      rateLimit: describeLimit(route),
      offload: route.options.offload === true,
      cache: describeCache(route),
      // The limit that applies (the route's, its routers' or the app's); null: none.
      timeoutMs: plan.timeoutMs !== undefined && plan.timeoutMs > 0 ? plan.timeoutMs : null,
      mcp: route.options.mcp !== undefined && route.options.mcp !== false,
      kind: "http",
    });
  }
  for (const { route } of tree.websockets) {
    views.push({
      method: "WS",
      pattern: route.path,
      handler: nameOf(route.handler, "handler"),
      source: routeSourceOf(route) ?? null,
      before: [],
      after: [],
      auth: null,
      authRequired: route.options.authRequired === true,
      rateLimit: null,
      offload: false,
      cache: null,
      timeoutMs: null,
      mcp: false,
      kind: "websocket",
    });
  }
  return views;
}

function describeLimit(route: RouteRecord): string | null {
  const limit = route.options.rateLimit;
  if (limit === undefined) return null;
  if (limit === false) return "off (exempt from the app's limit)";
  const shaped = limit as { limit?: number; windowMs?: number };
  return shaped.limit !== undefined && shaped.windowMs !== undefined
    ? `${shaped.limit} per ${shaped.windowMs} ms`
    : JSON.stringify(limit);
}

function describeCache(route: RouteRecord): string | null {
  if (route.options.const === true) return "const (computed once)";
  const cache = route.options.cacheResponses;
  return cache === undefined ? null : JSON.stringify(cache);
}
