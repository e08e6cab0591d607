/**
 * OpenAPI as a mount (src/plan/mount.ts): `GET /openapi.json`, `GET /docs` and
 * its assets are compiled beside the app's routes at every build, so the
 * document always describes the routes of that build.
 */
import type { AppState } from "../app-state.ts";
import type { Mount } from "../plan/mount.ts";
import { openApiRoutes } from "./index.ts";

export function openApiMount(app: AppState): Mount {
  return {
    name: "openapi",
    prepare() {
      const routes = openApiRoutes(app);
      return routes.length === 0 ? null : { routes };
    },
  };
}
