/**
 * Request ids as a mount (src/plan/mount.ts, docs/request-ids.md): the layer that gives each
 * request its id and echoes it, around every dispatcher (routes, 404s, static files, upgrades,
 * /mcp). With `requestId` off, src/request-id/echo.ts is not loaded.
 */
import type { AppState } from "../app-state.ts";
import type { Mount } from "../plan/mount.ts";

export function requestIdMount(app: AppState): Mount {
  return {
    name: "request-id",
    async prepare() {
      const ids = app.config.requestId;
      if (ids === null) return null;
      const { withRequestId } = await import("./echo.ts");
      return { layer: (dispatcher) => withRequestId(dispatcher, ids), seesEveryRequest: () => true };
    },
  };
}
