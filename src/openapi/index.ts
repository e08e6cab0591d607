/**
 * OpenAPI for a webfw app: `GET /openapi.json` (generated from the routes, or
 * a document the app supplies) and `GET /docs` (Swagger UI, served locally).
 */
import type { AppState } from "../app-state.ts";
import { nodeFs, nodePath } from "../builtins.ts";
import { joinPath, type RouteRecord } from "../router/route.ts";
import { assetResponse } from "./assets.ts";
import { docsPage } from "./docs-page.ts";
import { generateDocument } from "./generate.ts";
import { openApiDisabledByEnv, resolveOpenApiOptions } from "./options.ts";
import { type OpenApiAnswers, openApiRouteRecords } from "./routes.ts";
import { scalarAssetResponse, scalarBundle, scalarPage } from "./scalar.ts";
import type { ResolvedOpenApiOptions } from "./types.ts";

export { generateDocument, openApiPath } from "./generate.ts";
export { openApiDisabledByEnv, resolveOpenApiOptions } from "./options.ts";
export type { OpenApiDocument, OpenApiOptions, ResponseDoc, SchemaSource } from "./types.ts";

/**
 * The routes that serve the document and the reference page, for the build
 * step to compile beside the app's own. Nothing is registered on the app, so
 * building again (`app.request()` then `start()`) simply asks again, and the
 * document always reflects the routes of that build. A GET route the app
 * registered itself on one of these paths wins. Empty when disabled by the
 * `openapi: false` option or `WEBFW_DISABLE_OPENAPI=1` (`--disable-openapi`).
 *
 * The document is made here, at build time, so that a mistake in route
 * documentation stops the start instead of turning into a 500 later
 * (src/openapi/mount.ts makes it on first request when nothing can be wrong).
 */
export function openApiRoutes(app: AppState): RouteRecord[] {
  const options = resolveOpenApiOptions(app.config.openapi);
  if (options === false || openApiDisabledByEnv()) return [];
  const answers = openApiAnswers(app, options);
  return openApiRouteRecords(app, options, {
    document: () => answers.document(),
    page: () => answers.page(),
    asset: (name, raw) => answers.asset(name, raw),
  });
}

export function openApiAnswers(app: AppState, options: ResolvedOpenApiOptions): OpenApiAnswers {
  const { text, title } = documentFor(app, options);
  const assets = joinPath(options.docsPath, "assets");
  // Swagger UI by default; Scalar with `docsUi: "scalar"` (its bundle is found now, so a missing package fails the start).
  const scalar = options.docsUi === "scalar";
  if (scalar) scalarBundle();
  const page = (scalar ? scalarPage : docsPage)(title, options.path, assets);
  const assetOf = scalar ? scalarAssetResponse : assetResponse;
  return {
    document: () => new globalThis.Response(text, { headers: { "content-type": "application/json" } }),
    page: () => new globalThis.Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }),
    asset: assetOf,
  };
}

/** The serialised document and the title for the page. */
function documentFor(app: AppState, options: ResolvedOpenApiOptions): { text: string; title: string } {
  if (options.document === undefined) {
    const document = generateDocument(app, options);
    return { text: JSON.stringify(document), title: document.info.title };
  }
  const document = suppliedDocument(app, options.document);
  const info = document.info as { title?: unknown } | undefined;
  const title = typeof info?.title === "string" ? info.title : (options.title ?? "API");
  return { text: JSON.stringify(document), title };
}

/** A document the app supplies: an object, or a JSON file (relative to the app's main file). */
function suppliedDocument(app: AppState, source: Record<string, unknown> | string): Record<string, unknown> {
  let value: unknown = source;
  let label = "openapi.document";
  if (typeof source === "string") {
    const file = nodePath().isAbsolute(source)
      ? source
      : nodePath().resolve(nodePath().dirname(app.mainFile), source);
    label = `openapi.document '${file}'`;
    let text: string;
    try {
      text = nodeFs().readFileSync(file, "utf8");
    } catch (error) {
      throw new Error(`${label} cannot be read: ${(error as Error).message}`);
    }
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new Error(`${label} is not valid JSON: ${(error as Error).message}`);
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${label} must be a JSON object`);
  }
  if (typeof (value as Record<string, unknown>).openapi !== "string") {
    throw new TypeError(`${label} is not an OpenAPI document: it has no 'openapi' version string`);
  }
  return value as Record<string, unknown>;
}
