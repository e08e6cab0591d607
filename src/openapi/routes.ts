/**
 * The paths OpenAPI serves (the document, the reference page, its assets) as route records, with
 * whatever answers them: made at build (src/openapi/index.ts) or on first request
 * (src/openapi/mount.ts). Small on purpose: the lazy mount loads only this.
 */
import type { AppState } from "../app-state.ts";
import { joinPath, type RouteRecord } from "../router/route.ts";
import type { ResolvedOpenApiOptions } from "./types.ts";

/** What the three routes answer. */
export interface OpenApiAnswers {
  document(): globalThis.Response | Promise<globalThis.Response>;
  page(): globalThis.Response | Promise<globalThis.Response>;
  asset(name: string, raw: globalThis.Request): globalThis.Response | Promise<globalThis.Response>;
}

/** The document, the page and its assets as routes (a GET the app registered on one of their paths wins). */
export function openApiRouteRecords(
  app: AppState,
  options: ResolvedOpenApiOptions,
  answers: OpenApiAnswers,
): RouteRecord[] {
  const assets = joinPath(options.docsPath, "assets");
  const taken = new Set(app.allRoutes().flatMap((route) => (route.method === "GET" ? [route.path] : [])));
  const routes: RouteRecord[] = [];
  const add = (path: string, handler: RouteRecord["handler"]) => {
    if (!taken.has(path)) routes.push({ method: "GET", path, handler, options: { includeInSchema: false } });
  };
  add(options.path, () => answers.document());
  add(options.docsPath, () => answers.page());
  add(joinPath(assets, ":name"), (request) => answers.asset(request.pathParams.name as string, request.raw));
  return routes;
}
