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
      // The title and version default to the app's package.json: read with Bun.file before the
      // (synchronous) generation, so that it does not load node:fs for it; when the document waits for
      // its first request, so does the read (start-up, docs/performance.md).
      const readPackage =
        options.document === undefined && (options.title === undefined || options.version === undefined);
      let answers: OpenApiAnswers | null = null;
      if (checkedAtBuild(tree, options)) {
        if (readPackage) await preloadAppPackageInfo(app.mainFile);
        answers = (await import("./index.ts")).openApiAnswers(app, options);
      }
      let making: Promise<OpenApiAnswers> | null = null;
      const made = (): OpenApiAnswers | Promise<OpenApiAnswers> => {
        if (answers !== null) return answers;
        making ??= (readPackage ? preloadAppPackageInfo(app.mainFile) : Promise.resolve()).then(() => {
          answers ??= (require("./index.ts") as typeof OpenApi).openApiAnswers(app, options);
          return answers;
        });
        return making;
      };
      const routes = openApiRouteRecords(app, options, {
        document: () => answer(made(), (made) => made.document()),
        page: () => answer(made(), (made) => made.page()),
        asset: (name, raw) => answer(made(), (made) => made.asset(name, raw)),
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

/** Calls `use` on the answers, at once when they are made, else once they are. */
function answer(
  made: OpenApiAnswers | Promise<OpenApiAnswers>,
  use: (made: OpenApiAnswers) => globalThis.Response | Promise<globalThis.Response>,
): globalThis.Response | Promise<globalThis.Response> {
  return made instanceof Promise ? made.then(use) : use(made);
}
