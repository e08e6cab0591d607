export { Webfw, type WebfwOptions } from "./app.ts";
export { ArgError, ArgSpec, type InferArgs, t } from "./args/t.ts";
export { AuthenticationHandler, BearerGetter, TokenGetter } from "./auth.ts";
export { html, json, Renderable, type ServeFileOptions, serveFile, serveHtml } from "./bodies.ts";
export type { CookieOptions } from "./cookies.ts";
export { allowCors, type CorsOptions, type CorsOrigins } from "./cors/index.ts";
export { BadRequestError, HttpError, WebSocketDisconnect } from "./errors.ts";
export { Headers } from "./headers.ts";
export { Identity } from "./identity.ts";
export type { AfterMiddleware, BeforeMiddleware } from "./middleware.ts";
export { loadNative } from "./native/index.ts";
export { QueryParams } from "./query-params.ts";
export { Request } from "./request.ts";
export { Response } from "./response.ts";
export type { Handler, HttpMethod, PathParamsOf, RouteOptions } from "./route.ts";
export { SubRouter } from "./router-base.ts";
export type { ServerHandle, StartOptions } from "./server.ts";
export {
  commitSession,
  type SecretKey,
  Session,
  type SessionData,
  type SessionOptions,
  SessionTooLargeError,
} from "./sessions/index.ts";
export type { StandardSchemaV1 } from "./standard-schema.ts";
export * as statusCodes from "./status-codes.ts";
export { type SseEvent, type SseOptions, sse } from "./stream/sse.ts";
export { MustacheTemplate, TemplateInterface } from "./templating/index.ts";
export type { WebSocketAdapter } from "./types.ts";
export { Url } from "./url.ts";
export type {
  BroadcastOptions,
  CloseHandler,
  ConnectHandler,
  Message as WebSocketMessage,
  WebSocket,
  WebSocketDeps,
  WebSocketHandler,
  WebSocketOptions,
  WebSocketRoute,
  WebSocketRouteOptions,
} from "./websocket/index.ts";
