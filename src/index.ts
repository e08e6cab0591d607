export { Webfw, type WebfwOptions } from "./app.ts";
export type { StandardSchemaV1 } from "./args/standard-schema.ts";
export { ArgError, ArgSpec, type InferArgs, t } from "./args/t.ts";
export { AuthenticationHandler, BearerGetter, TokenGetter } from "./auth/handler.ts";
export { Identity } from "./auth/identity.ts";
export { allowCors, type CorsOptions, type CorsOrigins, corsMiddlewares } from "./cors/index.ts";
export type { CookieOptions } from "./http/cookies.ts";
export { Headers } from "./http/headers.ts";
export { QueryParams } from "./http/query-params.ts";
export { Request } from "./http/request.ts";
export * as statusCodes from "./http/status-codes.ts";
export { Url } from "./http/url.ts";
export type { ServerHandle, StartOptions } from "./launch/server.ts";
export type {
  CompleteFn,
  McpAuthOptions,
  McpConfig,
  McpContext,
  McpIcon,
  PromptFn,
  PromptOptions,
  ResourceFn,
  ResourceOptions,
  RouteFilter,
  RouteInfo,
  RouteMcpOption,
  RouteToolOptions,
  ToolAnnotations,
  ToolFn,
  ToolOptions,
  ToolReturn,
} from "./mcp/index.ts";
export { loadNative } from "./native/on-call.ts";
export type { MetricsOptions } from "./observability/metrics-options.ts";
export type { ProblemDetails, ProblemInit, ProblemIssue } from "./problem/details.ts";
// Every type a route handle, a router, the app or a typed call carries (declaration emit, docs/typescript.md).
export type * from "./public-types.ts";
export { MemoryStore, type MemoryStoreOptions } from "./rate-limit/memory-store.ts";
export type {
  RateLimitKey,
  RateLimitKeyFunction,
  RateLimitOptions,
} from "./rate-limit/options.ts";
export { RedisStore, RedisStoreError, type RedisStoreOptions } from "./rate-limit/redis-store.ts";
export type { Hit, RateLimitStore } from "./rate-limit/store.ts";
export type { RequestIdOptions } from "./request-id/options.ts";
export { html, json, Renderable, type ServeFileOptions, serveFile, serveHtml } from "./response/bodies.ts";
export { BadRequestError, HttpError, ValidationError, WebSocketDisconnect } from "./response/errors.ts";
export { Response } from "./response/response.ts";
export {
  type AfterMiddleware,
  type BeforeMiddleware,
  installPair,
  type MiddlewarePair,
  type MiddlewareTarget,
} from "./router/middleware.ts";
export type { Handler, HttpMethod, PathParamsOf, RouteOptions } from "./router/route.ts";
export { SubRouter } from "./router/router-base.ts";
export {
  commitSession,
  type SecretKey,
  Session,
  type SessionData,
  type SessionOptions,
  SessionTooLargeError,
  sessionMiddlewares,
} from "./sessions/index.ts";
export { type SseEvent, type SseOptions, sse } from "./stream/sse.ts";
export { MustacheTemplate, TemplateInterface } from "./templating/index.ts";
export type { WebSocketAdapter } from "./types.ts";
export type {
  BroadcastOptions,
  CloseHandler,
  ConnectHandler,
  Message as WebSocketMessage,
  MessageSchemas as WebSocketMessageSchemas,
  WebSocket,
  WebSocketDeps,
  WebSocketHandler,
  WebSocketOptions,
  WebSocketRoute,
  WebSocketRouteOptions,
} from "./websocket/index.ts";
