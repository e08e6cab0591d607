/**
 * OpenAPI as a mount (src/plan/mount.ts): `GET /openapi.json`, `GET /docs` and
 * its assets are compiled beside the app's routes at every build, so the
 * document always describes the routes of that build.
 *
 * The document is generated at build when something could be wrong with it (a route documents
 * `responses`, `tags`, `summary` or `description`; the app supplies a document; Scalar's bundle must
 * be found), so that a mistake stops the start. Otherwise the generator loads and runs on the first
 * request of the document or the page (idle memory and start-up, docs/performance.md).
 */
import type { AppState } from "../app-state.ts";
import type { Mount } from "../plan/mount.ts";
import type { RouterTree } from "../plan/tree.ts";
import type * as OpenApi from "./index.ts";
import { openApiDisabledByEnv, resolveOpenApiOptions } from "./options.ts";
import { preloadAppPackageInfo } from "./package-info.ts";
import { type OpenApiAnswers, openApiRouteRecords } from "./routes.ts";
import type { ResolvedOpenApiOptions } from "./types.ts";

export function openApiMount(app: AppState): Mount {
  return {
    name: "openapi",
    async prepare(tree) {
      const options = resolveOpenApiOptions(app.config.openapi);
      if (options === false || openApiDisabledByEnv()) return null;
      // The title and version default to the app's package.json: read here with Bun.file, so the
      // (synchronous) generation does not load node:fs for it.
      if (options.document === undefined && (options.title === undefined || options.version === undefined)) {
        await preloadAppPackageInfo(app.mainFile);
      }
      let answers: OpenApiAnswers | null = null;
      if (checkedAtBuild(tree, options)) answers = (await import("./index.ts")).openApiAnswers(app, options);
      const made = (): OpenApiAnswers => {
        answers ??= (require("./index.ts") as typeof OpenApi).openApiAnswers(app, options);
        return answers;
      };
      const routes = openApiRouteRecords(app, options, {
        document: () => made().document(),
        page: () => made().page(),
        asset: (name, raw) => made().asset(name, raw),
      });
      return routes.length === 0 ? null : { routes };
    },
  };
}

/** Whether generating the document could fail: then it is made at build, so the start fails. */
function checkedAtBuild(tree: RouterTree, options: ResolvedOpenApiOptions): boolean {
  if (options.document !== undefined || options.docsUi === "scalar") return true;
  return tree.routes.some(
    ({ route: { options: route } }) =>
      route.responses !== undefined ||
      route.tags !== undefined ||
      route.summary !== undefined ||
      route.description !== undefined,
  );
}
