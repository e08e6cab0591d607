/**
 * ETags, preconditions and `Cache-Control` as a mount (src/plan/mount.ts, docs/caching.md):
 * src/conditional/index.ts loads only for an app with `etag: true` or a route that sets `etag`,
 * `cacheControl` or `preconditions`; routes without them get nothing per request.
 */
import type { AppState } from "../app-state.ts";
import type { Mount } from "../plan/mount.ts";
import { isHostBlind, markHostBlind } from "../serve/host-blind.ts";

export function conditionalMount(app: AppState): Mount {
  return {
    name: "conditional",
    async prepare(tree) {
      const etag = app.config.etag;
      const used =
        etag ||
        tree.routes.some(
          ({ route: { options } }) =>
            options.etag !== undefined ||
            options.cacheControl !== undefined ||
            options.preconditions !== undefined,
        );
      if (!used) return null;
      const { conditionalRoute, usesConditional } = await import("./index.ts");
      return {
        seesEveryRequest: ({ route }) => usesConditional(route.options, etag, route.method),
        route(plan, { route, offloaded }) {
          const conditional = conditionalRoute(plan, route.options, etag, {
            offloaded,
            constant: route.options.const === true,
          });
          if (conditional === null) return null;
          return (dispatcher) => {
            const wrapped = conditional.wrap(dispatcher);
            // It reads only the conditional headers: a host-blind route stays one (src/serve/host-blind.ts).
            return isHostBlind(dispatcher) ? markHostBlind(wrapped) : wrapped;
          };
        },
      };
    },
  };
}
