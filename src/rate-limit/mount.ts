/**
 * Rate limits as a mount (src/plan/mount.ts, docs/rate-limiting.md): a guard around each route
 * with a limit (its own or its routers'), and around what other mounts add (the app's limit).
 * src/rate-limit/plan.ts and its layer load only for an app that declares a limit.
 */
import type { AppState } from "../app-state.ts";
import type { Mount } from "../plan/mount.ts";
import { settingDeclared } from "../plan/tree.ts";

export function rateLimitMount(app: AppState): Mount {
  return {
    name: "rate-limit",
    async prepare(tree, facts) {
      const declared = settingDeclared(
        tree,
        (route) => route.options.rateLimit,
        (router) => router.rateLimitSetting,
      );
      if (!declared) return null;
      const { planRateLimits } = await import("./plan.ts");
      // Behind trusted proxies the client's address is a header read (docs/client-address.md).
      const limits = planRateLimits(
        tree.globalBefore,
        tree.globalAfter,
        facts.config,
        app.config.client !== null,
      );
      const root = [tree.root];
      const appLimit = limits.limitOf(root, null);
      return {
        seesEveryRequest: ({ chain, route }) => limits.limitOf(chain, route) !== null,
        route(plan, { chain, route, label }) {
          const limit = limits.limitOf(chain, route);
          if (limit === null) return null;
          return (dispatcher) => limits.apply(dispatcher, limit, plan.auth, label, plan);
        },
        appRoute(dispatcher, kind, route) {
          if (kind === "fallback") return dispatcher;
          return limits.apply(dispatcher, appLimit, app.authHandler, "the app", {
            method: route?.method ?? "",
            before: tree.globalBefore,
            after: tree.globalAfter,
          });
        },
        close: () => limits.close(),
      };
    },
  };
}
