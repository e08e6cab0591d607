/**
 * Request ids as a mount (src/plan/layer-mount.ts, docs/request-ids.md): the layer that gives each
 * request its id and echoes it, around every dispatcher (routes, 404s, static files, upgrades,
 * /mcp). With `requestId` off, src/request-id/echo.ts is not loaded.
 */
import type { AppState } from "../app-state.ts";
import { layerMount } from "../plan/layer-mount.ts";
import type { Mount } from "../plan/mount.ts";

export function requestIdMount(app: AppState): Mount {
  return layerMount("request-id", {
    setting: () => app.config.requestId,
    async load(ids) {
      const { withRequestId } = await import("./echo.ts");
      return (dispatcher) => withRequestId(dispatcher, ids);
    },
    seesEveryRequest: true,
  });
}
