/**
 * Response caches as a mount (src/plan/mount.ts, docs/caching.md): only routes with a cache
 * setting (their own or a router's) get their handler wrapped. src/cache/plan.ts loads only for
 * an app that declares one.
 */
import type { AppState } from "../app-state.ts";
import type { Mount } from "../plan/mount.ts";
import { settingDeclared } from "../plan/tree.ts";

export function cacheMount(app: AppState): Mount {
  return {
    name: "cache",
    async prepare(tree) {
      const declared = settingDeclared(
        tree,
        (route) => route.options.cacheResponses,
        (router) => router.cacheSetting,
      );
      if (!declared) return null;
      const caches = (await import("./plan.ts")).planCaches(app.cache);
      return {
        route(plan, { route, chain, offloaded, timeoutMs }) {
          caches.apply(plan, chain, route, { offloaded, timeoutMs });
          return null;
        },
        close: () => caches.close(),
      };
    },
  };
}
