/**
 * Start-time assembly of rate limits: which limit each route has (its own
 * option, else the innermost router's, else the app's), the refusal
 * dispatchers (the app-global middlewares, plus the CORS pairs of the route's
 * routers), and the stores to close when the server stops.
 * A route without a limit gets its dispatcher back untouched.
 */
import type { AuthenticationHandler } from "../auth/handler.ts";
import { isCorsMiddleware } from "../cors/marks.ts";
import type { AfterMiddleware, BeforeMiddleware } from "../router/middleware.ts";
import type { RouteOptions } from "../router/route.ts";
import type { RouterBase } from "../router/router-base.ts";
import { builtInPlan, compileRoute, type Dispatcher, type PipelineConfig } from "../serve/dispatch.ts";
import type * as Layer from "./layer.ts";
import { MemoryStore } from "./memory-store.ts";
import { type PlacedSetting, type ResolvedRateLimit, resolveRateLimit } from "./options.ts";
import type { RateLimitStore } from "./store.ts";

export interface RateLimitRoute {
  method: string;
  path: string;
  options: Pick<RouteOptions, "rateLimit">;
}

/** The route a limit wraps: its method and middlewares (all of them, app-global ones first). */
export interface LimitedRoute {
  method: string;
  before: readonly BeforeMiddleware[];
  after: readonly AfterMiddleware[];
}

export interface RateLimits {
  /** The route's limit, `null` when none applies. */
  limitOf(chain: readonly RouterBase[], route: RateLimitRoute | null): ResolvedRateLimit | null;
  /**
   * Wraps a route's dispatcher with its limit (or returns it as is). `route`: its middlewares, whose
   * CORS pairs the refusals run (docs/rate-limiting.md#cors-and-preflights); without it, the
   * app-global ones only (what mounts add, e.g. `/mcp`, has no others).
   */
  apply(
    dispatcher: Dispatcher,
    limit: ResolvedRateLimit | null,
    auth: AuthenticationHandler | null,
    label: string,
    route?: LimitedRoute,
  ): Dispatcher;
  /** Closes every store a limit of this app used (Redis connections); called when the server stops. */
  close(): Promise<void>;
}

// The layer, and `node:net` it needs for client addresses (+2.3 MB RSS), load at the build of the
// first route with a limit: an app without limits never loads them (idle memory, docs/performance.md).
let loadedLayer: typeof Layer | undefined;
function layer(): typeof Layer {
  loadedLayer ??= require("./layer.ts") as typeof Layer;
  return loadedLayer;
}

export function planRateLimits(
  globalBefore: BeforeMiddleware[],
  globalAfter: AfterMiddleware[],
  config: PipelineConfig,
  forwarded = false,
): RateLimits {
  let defaultStore: MemoryStore | null = null;
  const used = new Set<RateLimitStore>();
  // One refusal dispatcher per set of router CORS pairs ("" for none), keyed by the pairs' ids.
  const refusals = new Map<string, Dispatcher>();
  const ids = new WeakMap<BeforeMiddleware | AfterMiddleware, number>();
  let nextId = 0;
  const idOf = (fn: BeforeMiddleware | AfterMiddleware): number => {
    let id = ids.get(fn);
    if (id === undefined) {
      id = ++nextId;
      ids.set(fn, id);
    }
    return id;
  };
  const globals = new Set<BeforeMiddleware | AfterMiddleware>([...globalBefore, ...globalAfter]);
  const refusal = (route: LimitedRoute | undefined): Dispatcher => {
    // A refusal is answered before the route's middlewares run; of its routers' middlewares only
    // their CORS pairs wrap it, so that a browser page reads the 429 (the rest belong to the route).
    const before = route?.before.filter((fn) => !globals.has(fn) && isCorsMiddleware(fn)) ?? [];
    const after = route?.after.filter((fn) => !globals.has(fn) && isCorsMiddleware(fn)) ?? [];
    const key = [...before, ...after].map(idOf).join(",");
    let refuse = refusals.get(key);
    if (refuse === undefined) {
      // The 429 runs the app-global middlewares (CORS, header rules) but reads no body.
      const plan = builtInPlan(
        "",
        "GET",
        layer().throwRefusal,
        [...globalBefore, ...before],
        [...globalAfter, ...after],
      );
      plan.rawBody = true;
      refuse = compileRoute(plan, config);
      refusals.set(key, refuse);
    }
    return refuse;
  };
  return {
    limitOf(chain, route) {
      const declarations: PlacedSetting[] = [];
      for (const router of chain) {
        if (router.rateLimitSetting === undefined) continue;
        const where = router.parent === null && router.prefix === "" ? "app" : `router ${router.prefix}`;
        declarations.push({ setting: router.rateLimitSetting, where });
      }
      const own = route?.options.rateLimit;
      if (route && own !== undefined)
        declarations.push({ setting: own, where: `${route.method} ${route.path}` });
      if (declarations.length === 0) return null;
      return resolveRateLimit(declarations, route ? `${route.method} ${route.path}` : "the app");
    },
    apply(dispatcher, limit, auth, label, route) {
      if (limit === null) return dispatcher;
      if (limit.store === null) defaultStore ??= new MemoryStore();
      const store = limit.store ?? (defaultStore as MemoryStore);
      used.add(store);
      const limited = layer().withRateLimit(dispatcher, limit, {
        refuse: refusal(route),
        auth,
        globalDependencies: config.globalDependencies,
        defaultStore: store,
        label,
        forwarded,
      });
      const before = route?.before ?? globalBefore;
      return route?.method === "OPTIONS" && before.some(isCorsMiddleware)
        ? preflightsUncounted(limited, dispatcher)
        : limited;
    },
    async close() {
      for (const store of used) await store.close?.();
      used.clear();
    },
  };
}

/**
 * An `OPTIONS` route under CORS: its CORS pair answers preflights before the handler (docs/cors.md),
 * and they are not counted. A browser sends one by itself before a non-simple request (which is
 * counted), without credentials; counting it would charge a page twice per call and, once the limit
 * is reached, turn the 429 the page should see into a CORS error. Other OPTIONS requests are counted.
 */
function preflightsUncounted(limited: Dispatcher, unlimited: Dispatcher): Dispatcher {
  return (raw, server, params, context) =>
    raw.headers.has("access-control-request-method") && raw.headers.has("origin")
      ? unlimited(raw, server, params, context)
      : limited(raw, server, params, context);
}
