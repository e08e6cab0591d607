/**
 * Start-time assembly of rate limits: which limit each route has (its own
 * option, else the innermost router's, else the app's), the one refusal
 * dispatcher they share, and the stores to close when the server stops.
 * A route without a limit gets its dispatcher back untouched.
 */
import type { AuthenticationHandler } from "../auth/handler.ts";
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

export interface RateLimits {
  /** The route's limit, `null` when none applies. */
  limitOf(chain: readonly RouterBase[], route: RateLimitRoute | null): ResolvedRateLimit | null;
  /** Wraps a route's dispatcher with its limit (or returns it as is). */
  apply(
    dispatcher: Dispatcher,
    limit: ResolvedRateLimit | null,
    auth: AuthenticationHandler | null,
    label: string,
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
): RateLimits {
  let defaultStore: MemoryStore | null = null;
  const used = new Set<RateLimitStore>();
  let refuse: Dispatcher | null = null;
  const refusal = (): Dispatcher => {
    if (refuse === null) {
      // The 429 runs the app-global middlewares (CORS, header rules) but reads no body.
      const plan = builtInPlan("", "GET", layer().throwRefusal, globalBefore, globalAfter);
      plan.rawBody = true;
      refuse = compileRoute(plan, config);
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
    apply(dispatcher, limit, auth, label) {
      if (limit === null) return dispatcher;
      if (limit.store === null) defaultStore ??= new MemoryStore();
      const store = limit.store ?? (defaultStore as MemoryStore);
      used.add(store);
      return layer().withRateLimit(dispatcher, limit, {
        refuse: refusal(),
        auth,
        globalDependencies: config.globalDependencies,
        defaultStore: store,
        label,
      });
    },
    async close() {
      for (const store of used) await store.close?.();
      used.clear();
    },
  };
}
