/**
 * OpenAPI as a mount (src/plan/mount.ts): `GET /openapi.json`, `GET /docs` and
 * its assets are compiled beside the app's routes at every build, so the
 * document always describes the routes of that build.
 */
import type { AppState } from "../app-state.ts";
import type { Mount } from "../plan/mount.ts";
import { openApiRoutes } from "./index.ts";
import { openApiDisabledByEnv, resolveOpenApiOptions } from "./options.ts";
import { preloadAppPackageInfo } from "./package-info.ts";

export function openApiMount(app: AppState): Mount {
  return {
    name: "openapi",
    async prepare() {
      const options = resolveOpenApiOptions(app.config.openapi);
      if (options === false || openApiDisabledByEnv()) return null;
      // The title and version default to the app's package.json: read here with Bun.file, so the
      // (synchronous) generation does not load node:fs for it.
      if (options.document === undefined && (options.title === undefined || options.version === undefined)) {
        await preloadAppPackageInfo(app.mainFile);
      }
      const routes = openApiRoutes(app);
      return routes.length === 0 ? null : { routes };
    },
  };
}
