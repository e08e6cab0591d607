/**
 * IP filters as a mount (src/plan/mount.ts, docs/ip-filter.md): a guard around each route with a
 * filter (its own or its routers'), and the app's filter around what mounts add and the answers
 * no route gives (404, static files). Its modules load only for an app that declares a filter.
 */
import type { AppState } from "../app-state.ts";
import type { Mount } from "../plan/mount.ts";
import { settingDeclared } from "../plan/tree.ts";

export function ipFilterMount(app: AppState): Mount {
  return {
    name: "ip-filter",
    async prepare(tree, facts) {
      const declared = settingDeclared(
        tree,
        (route) => route.options.ipFilter,
        (router) => router.ipFilterSetting,
      );
      if (!declared) return null;
      const { planIpFilters } = await import("./plan.ts");
      // Behind trusted proxies the client's address is a header read (docs/client-address.md).
      const filters = planIpFilters(
        tree.globalBefore,
        tree.globalAfter,
        facts.config,
        app.config.client !== null,
      );
      const appFilters = filters.filtersOf([tree.root], null);
      return {
        seesEveryRequest: ({ chain, route }) => filters.filtersOf(chain, route).length > 0,
        route(_plan, { chain, route }) {
          const own = filters.filtersOf(chain, route);
          return own.length === 0 ? null : (dispatcher) => filters.apply(dispatcher, own);
        },
        appRoute: (dispatcher) => filters.apply(dispatcher, appFilters),
      };
    },
  };
}
