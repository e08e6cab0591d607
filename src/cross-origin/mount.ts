/**
 * Cross-site request protection as a mount (src/plan/mount.ts, docs/security.md): a guard around
 * each route of an unsafe method, outside its limit and filter (a refused request is not counted).
 * src/cross-origin/plan.ts loads with the first route of an unsafe method: an app with only GET,
 * HEAD, OPTIONS and TRACE routes loads none of it.
 */
import type { AppState } from "../app-state.ts";
import type { Mount } from "../plan/mount.ts";
import type * as Plan from "./plan.ts";

/** Methods that must not change state (RFC 9110 §9.2.1): never checked. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);

export function crossOriginMount(app: AppState): Mount {
  return {
    name: "cross-origin",
    prepare(tree, facts) {
      let guard: Plan.CrossOriginGuard | null = null;
      return {
        route(_plan, { chain, route }) {
          if (SAFE_METHODS.has(route.method)) return null;
          guard ??= (require("./plan.ts") as typeof Plan).planCrossOrigin(
            app.config.csrf,
            tree.globalBefore,
            tree.globalAfter,
            facts.config,
          );
          const checks = guard;
          return (dispatcher) => checks.apply(dispatcher, chain, route);
        },
      };
    },
  };
}
