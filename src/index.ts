export { Webfw, type WebfwOptions } from "./app.ts";
export type { StandardSchemaV1 } from "./args/standard-schema.ts";
export { ArgError, ArgSpec, type InferArgs, t } from "./args/t.ts";
export { BasicAuth, type BasicAuthOptions, type BasicClaims, BasicGetter } from "./auth/basic.ts";
export {
  AuthenticationHandler,
  BearerGetter,
  type OpenApiSecurityScheme,
  TokenGetter,
} from "./auth/handler.ts";
export { Identity } from "./auth/identity.ts";
export { type JwtAlgorithm, JwtAuth, type JwtAuthOptions, type JwtClaims } from "./auth/jwt.ts";
export { MemoryCacheStore, type MemoryCacheStoreOptions } from "./cache/memory-store.ts";
export type { CacheKeyFunction, CacheOptions, CacheSetting } from "./cache/options.ts";
export {
  RedisCacheStore,
  RedisCacheStoreError,
  type RedisCacheStoreOptions,
} from "./cache/redis-store.ts";
export type { CacheInvalidation, ResponseCache } from "./cache/response-cache.ts";
export type { CacheEntry, CacheStore } from "./cache/store.ts";
export type { Preconditions, ResourceValidators } from "./conditional/options.ts";
export type { ResponseEntry, ResponseSchema } from "./contracts/declared.ts";
export type { ResponseCheckMode } from "./contracts/mode.ts";
export type { CorsOptions, CorsOrigins } from "./cors/index.ts";
export type { CrossOriginOptions, CrossOriginSetting } from "./cross-origin/options.ts";
export { appDir } from "./embed/app-dir.ts";
export type { ProxyHeaders, TrustProxy } from "./http/client-address.ts";
export type { CookieOptions } from "./http/cookies.ts";
export { Headers } from "./http/headers.ts";
export { QueryParams } from "./http/query-params.ts";
export { Request } from "./http/request.ts";
export * as statusCodes from "./http/status-codes.ts";
export { Url } from "./http/url.ts";
export type { IpFilterOptions, IpFilterSetting } from "./ip-filter/options.ts";
export type { CronRun } from "./jobs/cron-runner.ts";
export { JobTimeoutError } from "./jobs/errors.ts";
export type {
  BackoffOptions,
  CronOptions,
  EnqueueOptions,
  JobContext,
  JobHandler,
  JobOptions,
} from "./jobs/options.ts";
export type { FailedJob } from "./jobs/queue.ts";
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
  RateLimitAlgorithm,
  RateLimitKey,
  RateLimitKeyFunction,
  RateLimitOptions,
} from "./rate-limit/options.ts";
export { RedisStore, RedisStoreError, type RedisStoreOptions } from "./rate-limit/redis-store.ts";
export type { Hit, RateLimitStore } from "./rate-limit/store.ts";
export type { RequestIdOptions } from "./request-id/options.ts";
export { html, json, Renderable, type ServeFileOptions, serveFile, serveHtml } from "./response/bodies.ts";
export { BadRequestError, HttpError, ValidationError, WebSocketDisconnect } from "./response/errors.ts";
export { type RedirectStatus, redirect } from "./response/redirect.ts";
export { Response } from "./response/response.ts";
export type { AfterMiddleware, BeforeMiddleware } from "./router/middleware.ts";
export type { Handler, HttpMethod, PathParamsOf, RouteOptions } from "./router/route.ts";
export { SubRouter } from "./router/router-base.ts";
export {
  type ContentSecurityPolicyOptions,
  type CspSources,
  NONCE,
  type PermissionAllowList,
  type ReferrerPolicyValue,
  type SecureHeadersOptions,
  type StrictTransportSecurityOptions,
} from "./secure-headers/options.ts";
export { timed, timing } from "./server-timing/index.ts";
export {
  commitSession,
  type SecretKey,
  Session,
  type SessionData,
  type SessionOptions,
  SessionTooLargeError,
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
