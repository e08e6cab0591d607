/**
 * `webfw`: what every app uses (docs/exports.md). Each feature has its own subpath
 * (`webfw/cors`, `webfw/sessions`, `webfw/mcp`, …) and every other type is in `webfw/types`.
 */
export { Webfw, type WebfwOptions } from "./app.ts";
export { ArgError, type InferArgs, t } from "./args/t.ts";
export { BasicAuth, type BasicClaims, BasicGetter } from "./auth/basic.ts";
export { AuthenticationHandler, BearerGetter, TokenGetter } from "./auth/handler.ts";
export { Identity } from "./auth/identity.ts";
export { JwtAuth, type JwtClaims } from "./auth/jwt.ts";
export { appDir } from "./embed/app-dir.ts";
export { Headers } from "./http/headers.ts";
export { Request } from "./http/request.ts";
export * as statusCodes from "./http/status-codes.ts";
export type { ServerHandle } from "./launch/server.ts";
export { html, json, Renderable, serveFile, serveHtml } from "./response/bodies.ts";
export { BadRequestError, HttpError, ValidationError } from "./response/errors.ts";
export { redirect } from "./response/redirect.ts";
export { Response } from "./response/response.ts";
export type { Handler, RouteOptions } from "./router/route.ts";
export type { Route } from "./router/route-handle.ts";
export { SubRouter } from "./router/router-base.ts";
export { type SseEvent, sse } from "./stream/sse.ts";
// The subpaths' declaration files (types only, erased at run time): src/subpath-types.ts.
export type {} from "./subpath-types.ts";
