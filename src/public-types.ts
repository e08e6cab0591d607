/**
 * Every type that a route handle, a router, the app or a typed call can carry, nameable from
 * the package root (docs/typescript.md, "Declaration files of your own"). When a user's module
 * exports `const getNote = notes.get(...)` and compiles with `declaration: true` (a monorepo
 * sharing API types, `tsc --incremental`), TypeScript writes the handle's inferred type into a
 * `.d.ts`; each type in it must be reachable through `webfw`, or the emit fails with TS2742 and
 * `--incremental` sees the export as `any`. `src/index.ts` re-exports this module whole
 * (`export type *`), so moving these names to another entry point is one line.
 *
 * Types only: nothing here exists at run time. `test/types/public-types.test.ts` walks the
 * declaration files from the public entry points and fails on any type they reach that is
 * not exported from one of them.
 */

// The app and its options.
export type { AppConfig, ExceptionHandler, LifecycleHandler } from "./app-state.ts";
export type { BodyInput, SchemaOutput } from "./args/input-types.ts";
export type { JsonSchema } from "./args/json-schema.ts";
export type { Direction, StandardIssue, StandardResult } from "./args/standard-schema.ts";
// Typed arguments: what `t.int()`, `t.str()`, `t.list()`, `t.object()` return.
export type {
  ArgShape,
  Constraint,
  Defaulted,
  ListArg,
  NumberArg,
  ObjectSpec,
  RouteArgShape,
  StringArg,
} from "./args/t.ts";
// Options and resolved settings of the features added on 2026-11-27 (their option objects and what
// `AppConfig` holds), so that a user's declaration emit can name them too.
export type { JwksOptions } from "./auth/jwks.ts";
export type { BackgroundBounds, ResolvedBackgroundBounds } from "./background/bounds.ts";
export type { BackgroundTask } from "./background/tasks.ts";
export type { FormLimits, ParsedForm, UploadedFile } from "./body/form-types.ts";
export type { RedisSettings } from "./cache/response-cache.ts";
// The in-process typed call (`app.request(handle, …)`).
export type { AnyRoute, ClientResult, InputTuple } from "./client/route-types.ts";
export type { Encoding as CompressionEncoding } from "./compression/negotiate.ts";
export type { CompressionOptions, ResolvedCompression } from "./compression/options.ts";
export type { ConditionalRouteOptions } from "./conditional/options.ts";
export type { CheckedCrossOrigin } from "./cross-origin/options.ts";
export type { DashboardOption, DashboardSettings } from "./dashboard/options.ts";
export type { ClientResolver } from "./http/client-address.ts";
export type { IpBytes } from "./http/ip-address.ts";
export type { RouterEngine } from "./match/types.ts";
export type {
  McpUi,
  McpUiCsp,
  McpUiPermission,
  McpUiPermissions,
  McpUiSettings,
  McpUiVisibility,
} from "./mcp/apps/options.ts";
export type { Mcp } from "./mcp/index.ts";
export type {
  ElicitInput,
  PromptArgument,
  PromptMessageInput,
  ResourceAnnotations,
  SampleInput,
} from "./mcp/types.ts";
export type { TemplateNames } from "./mcp/uri-template.ts";
export type { CCompilerChoice, CompileOptions } from "./native/compile.ts";
export type { LoadNativeOptions, NativeSymbols } from "./native/load.ts";
export type { ResolvedMetricsOptions } from "./observability/metrics-options.ts";
export type { OpenApiOptions, ResponseDoc, SchemaSource } from "./openapi/types.ts";
export type { BuildOptions, BuiltApp } from "./plan/build.ts";
export type { IssueLocation } from "./problem/details.ts";
export type { ResolvedRequestIdOptions } from "./request-id/options.ts";
export type { ErrorFormat } from "./response/error-response.ts";
// Routes and routers: the handle `app.get(...)` returns and the types its parameters carry.
export type {
  AppTypes,
  ClaimsOf,
  GlobalDepsOf,
  NoAppTypes,
  RouterDepsOf,
} from "./router/app-types.ts";
export type { BodySchema, EmptyArgs, InferRouteArgs, JoinPath } from "./router/route.ts";
export type { Route, RouteShape } from "./router/route-handle.ts";
export type {
  ArgsOfOptions,
  BodyOfOptions,
  EmptyOptions,
  RouteMethod,
  RouterBase,
  RouterOptions,
  SubRouterOptions,
  TypedSubRouter,
} from "./router/router-base.ts";
export type { ResolvedSecureHeaders } from "./secure-headers/options.ts";
export type { SessionBackend } from "./sessions/session.ts";
export type { ServeDirectoryOptions } from "./static/serve-directory.ts";
export type { SseBody } from "./stream/sse.ts";
export type { TransportOptions } from "./transport/options.ts";
export type { PemInput, TlsOptions } from "./transport/tls.ts";
export type { ResolvedUploadBounds, UploadBounds } from "./uploads/bounds.ts";
export type { UploadLimits } from "./uploads/limits.ts";
export type { Part as UploadPart } from "./uploads/parts.ts";
export type { ResolvedWebSocketOptions } from "./websocket/options.ts";
export type { SocketShape } from "./websocket/route.ts";
