/**
 * Start-time assembly of response caches (docs/caching.md): which setting each route has (its own
 * `cache` option, else the innermost router's `cacheResponses`), and the wrapping of its handler.
 * A route without one keeps its handler untouched, and src/cache/layer.ts is not even loaded.
 */
import type { RouteOptions } from "../router/route.ts";
import type { RouterBase } from "../router/router-base.ts";
import type { RoutePlan } from "../serve/dispatch.ts";
import type * as Layer from "./layer.ts";
import { type CacheSetting, checkCacheSetting, resolveCache } from "./options.ts";
import type { ResponseCache } from "./response-cache.ts";

/** How long one computation may hold a key when the route has no time limit of its own. */
const DEFAULT_LOCK_MS = 30_000;

export interface CachedRouteInfo {
  method: string;
  path: string;
  options: Pick<RouteOptions, "cacheResponses" | "const">;
}

export interface ResponseCaches {
  /** Wraps the handler of a route that has a cache setting (its own or its routers'). */
  apply(
    plan: RoutePlan,
    chain: readonly RouterBase[],
    route: CachedRouteInfo,
    shape: { offloaded: boolean; timeoutMs: number },
  ): void;
  close(): Promise<void>;
}

let loadedLayer: typeof Layer | undefined;
function layer(): typeof Layer {
  loadedLayer ??= require("./layer.ts") as typeof Layer;
  return loadedLayer;
}

export function planCaches(cache: ResponseCache): ResponseCaches {
  let used = false;
  return {
    apply(plan, chain, route, shape) {
      const declarations: CacheSetting[] = [];
      for (const router of chain)
        if (router.cacheSetting !== undefined) declarations.push(router.cacheSetting);
      const label = `${route.method} ${route.path}`;
      const own = route.options.cacheResponses;
      if (own !== undefined) declarations.push(checkCacheSetting(own, label));
      if (declarations.length === 0) return;
      const setting = resolveCache(declarations);
      if (setting === null) return;
      if (route.method !== "GET") {
        // A router's setting is for its GET routes; a route's own is a mistake elsewhere.
        if (own !== undefined && own !== false)
          throw new Error(`cache of ${label}: only GET routes (and HEAD through them) are cached`);
        return;
      }
      // Computed once at start already.
      if (route.options.const === true) return;
      const inner = plan.invoke ?? plan.handler;
      const cached = layer().withCache(inner, setting, {
        store: () => cache.store,
        label,
        offloaded: shape.offloaded,
        lockMs: shape.timeoutMs > 0 ? shape.timeoutMs : DEFAULT_LOCK_MS,
      });
      if (plan.invoke !== undefined) plan.invoke = cached;
      else plan.handler = cached;
      if (!used) cache.listen();
      used = true;
    },
    async close() {
      if (used) await cache.close();
    },
  };
}
