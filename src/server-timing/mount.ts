/**
 * `Server-Timing` as a mount (src/plan/mount.ts, docs/observability.md, "Server-Timing"): the
 * outermost layer (`total` covers every other one) and the `handler` entry of each route. Only
 * when the header is sent (`serverTiming`, or `"dev"` in a development build).
 */
import type { AppState } from "../app-state.ts";
import type { Mount } from "../plan/mount.ts";

export function serverTimingMount(app: AppState): Mount {
  return {
    name: "server-timing",
    async prepare(_tree, facts) {
      const setting = app.config.serverTiming;
      if (!(setting === true || (setting === "dev" && facts.dev))) return null;
      const { timeHandler, withServerTiming } = await import("./index.ts");
      return {
        seesEveryRequest: () => true,
        route(plan) {
          timeHandler(plan);
          return null;
        },
        layer: (dispatcher) => withServerTiming(dispatcher, facts.config.tracing ?? null),
      };
    },
  };
}
