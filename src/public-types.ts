/**
 * Every type that a route handle, a router, the app or a typed call can carry and that neither the
 * root nor a feature's subpath exports, nameable from `webfw/types` (docs/typescript.md,
 * "Declaration files of your own"), plus the options of what the root exports (docs/exports.md). When a user's module
 * exports `const getNote = notes.get(...)` and compiles with `declaration: true` (a monorepo
 * sharing API types, `tsc --incremental`), TypeScript writes the handle's inferred type into a
 * `.d.ts`; each type in it must be reachable through a public entry point, or the emit fails with
 * TS2742 and `--incremental` sees the export as `any`. `webfw/types` (src/types.ts) re-exports this
 * module whole (`export type *`); a feature's own types are in its subpath (docs/exports.md).
 *
 * Types only: nothing here exists at run time. `test/types/declarations.test.ts` walks the
 * declaration files from the public entry points and fails on any type they reach that is
 * not exported from one of them.
 */

// The app and its options.
export type { AppConfig, ExceptionHandler, LifecycleHandler } from "./app-state.ts";
export type { BodyInput, SchemaOutput } from "./args/input-types.ts";
export type { JsonSchema } from "./args/json-schema.ts";
export type { Direction, StandardIssue, StandardResult, StandardSchemaV1 } from "./args/standard-schema.ts";
// Typed arguments: what `t.int()`, `t.str()`, `t.list()`, `t.object()` return.
export type {
  ArgShape,
  ArgSpec,
  Constraint,
  Defaulted,
  ListArg,
  NumberArg,
  ObjectSpec,
  RouteArgShape,
  StringArg,
} from "./args/t.ts";
export type { BasicAuthOptions } from "./auth/basic.ts";
export type { OpenApiSecurityScheme } from "./auth/handler.ts";
// Options and resolved settings of the features added on 2026-11-27 (their option objects and what
// `AppConfig` holds), so that a user's declaration emit can name them too.
export type { JwksOptions } from "./auth/jwks.ts";
export type { JwtAlgorithm, JwtAuthOptions } from "./auth/jwt.ts";
export type { BackgroundBounds, ResolvedBackgroundBounds } from "./background/bounds.ts";
export type { BackgroundTask } from "./background/tasks.ts";
export type { FormLimits, ParsedForm, UploadedFile } from "./body/form-types.ts";
// The in-process typed call (`app.request(handle, …)`).
export type { AnyRoute, InputTuple } from "./client/route-types.ts";
export type { Encoding as CompressionEncoding } from "./compression/negotiate.ts";
export type { CompressionOptions, ResolvedCompression } from "./compression/options.ts";
export type { ConditionalRouteOptions, Preconditions, ResourceValidators } from "./conditional/options.ts";
export type { ResponseEntry, ResponseSchema } from "./contracts/declared.ts";
export type { ResponseCheckMode } from "./contracts/mode.ts";
export type { CheckedCrossOrigin, CrossOriginOptions, CrossOriginSetting } from "./cross-origin/options.ts";
export type { DashboardOption, DashboardSettings } from "./dashboard/options.ts";
export type { ClientResolver, ProxyHeaders, TrustProxy } from "./http/client-address.ts";
export type { CookieOptions } from "./http/cookies.ts";
export type { IpBytes } from "./http/ip-address.ts";
export type { IpFilterOptions, IpFilterSetting } from "./ip-filter/options.ts";
export type { StartOptions } from "./launch/server.ts";
export type { RouterEngine } from "./match/types.ts";
export type { OpenApiOptions, ResponseDoc, SchemaSource } from "./openapi/types.ts";
export type { BuildOptions, BuiltApp } from "./plan/build.ts";
export type { IssueLocation, ProblemDetails, ProblemInit, ProblemIssue } from "./problem/details.ts";
export type { ServeFileOptions } from "./response/bodies.ts";
export type { ErrorFormat } from "./response/error-response.ts";
export type { RedirectStatus } from "./response/redirect.ts";
// Routes and routers: the handle `app.get(...)` returns and the types its parameters carry.
export type {
  AppTypes,
  ClaimsOf,
  GlobalDepsOf,
  NoAppTypes,
  RouterDepsOf,
} from "./router/app-types.ts";
export type {
  AfterMiddleware,
  BeforeMiddleware,
  MiddlewarePair,
  MiddlewareTarget,
} from "./router/middleware.ts";
export type {
  BodySchema,
  EmptyArgs,
  HttpMethod,
  InferRouteArgs,
  JoinPath,
  PathParamsOf,
} from "./router/route.ts";
export type { RouteShape } from "./router/route-handle.ts";
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
export type { ServeDirectoryOptions } from "./static/serve-directory.ts";
export type { SseBody, SseOptions } from "./stream/sse.ts";
export type { TransportOptions } from "./transport/options.ts";
export type { PemInput, TlsOptions } from "./transport/tls.ts";
export type { ResolvedUploadBounds, UploadBounds } from "./uploads/bounds.ts";
export type { UploadLimits } from "./uploads/limits.ts";
export type { Part as UploadPart } from "./uploads/parts.ts";
