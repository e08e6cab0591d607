/**
 * The application as data: what `Webfw` (src/app.ts) holds and the build
 * (src/plan/build.ts), the server (src/launch/server.ts), the Workers and the
 * features read. They depend on this interface, not on the `Webfw` class, so
 * nothing below the facade imports it (no import cycle through app.ts).
 * Start-time decisions (`--dev`, `--disable-openapi`) are passed to the build
 * as options and never written back here.
 */
import type { ResolvedBackgroundBounds } from "./background/bounds.ts";
import type { FormLimits } from "./body/forms.ts";
import type { ResponseCache } from "./cache/response-cache.ts";
import type { ResolvedCompression } from "./compression/options.ts";
import type { ResponseCheckMode } from "./contracts/mode.ts";
import type { CheckedCrossOrigin } from "./cross-origin/options.ts";
import type { DashboardOption } from "./dashboard/options.ts";
import type { ClientResolver } from "./http/client-address.ts";
import type { Request } from "./http/request.ts";
import type { RouterEngine } from "./match/types.ts";
import type { ResolvedMetricsOptions } from "./observability/metrics-options.ts";
import type { OpenApiOptions } from "./openapi/types.ts";
import type { Mount } from "./plan/mount.ts";
import type { ResolvedRequestIdOptions } from "./request-id/options.ts";
import type { ErrorFormat } from "./response/error-response.ts";
import type { RouterBase } from "./router/router-base.ts";
import type { ResolvedSecureHeaders } from "./secure-headers/options.ts";
import type { HeaderRule } from "./serve/header-rules.ts";
import type { FallbackHandler } from "./serve/runtime.ts";
import type { ResolvedUploadBounds } from "./uploads/bounds.ts";
import type { BroadcastOptions, ResolvedWebSocketOptions } from "./websocket/options.ts";

export type LifecycleHandler = () => unknown;
export type ExceptionHandler = (error: unknown, request: Request) => unknown;

/** The app's options once resolved and checked (`new Webfw(path, options)`). */
export interface AppConfig {
  router: RouterEngine;
  maxBodySize: number;
  maxBodyBuffer: number;
  bodyReadTimeoutMs: number;
  formLimits: FormLimits;
  /** Streamed uploads in flight per process (src/uploads/bounds.ts). */
  uploads: ResolvedUploadBounds;
  /** Background tasks running and waiting per thread (src/background/bounds.ts). */
  background: ResolvedBackgroundBounds;
  dev: boolean;
  /** Handler time limit of every route unless a router or the route gives its own; 0: none. */
  timeoutMs: number;
  openapi: false | OpenApiOptions;
  websocket: ResolvedWebSocketOptions;
  /** `null` when request ids are off. */
  requestId: ResolvedRequestIdOptions | null;
  /** `null`: compression off. */
  compression: ResolvedCompression | null;
  /** Bodies of built-in errors: plain text or RFC 9457 problem details. */
  errors: ErrorFormat;
  /** A server span per request through `@opentelemetry/api`. */
  tracing: boolean;
  /** `null` when metrics are off. */
  metrics: ResolvedMetricsOptions | null;
  /** `null`: no secure response headers (docs/security.md). */
  secureHeaders: ResolvedSecureHeaders | null;
  /** Cross-site request protection of unsafe methods; `false`: off (docs/security.md). */
  csrf: CheckedCrossOrigin;
  /** Weak ETags and 304s for buffered GET answers of every route (route option `etag` overrides). */
  etag: boolean;
  /** `Server-Timing` headers: always, only in development builds (`"dev"`), or never. */
  serverTiming: boolean | "dev";
  /** `trustProxy` and `proxyHeaders` resolved (docs/client-address.md); `null`: the socket's address. */
  client: ClientResolver | null;
  /** Response contracts: what breaking a declared `responses` schema gets (docs/responses.md). */
  responseCheck: ResponseCheckMode;
  /** The development dashboard (src/dashboard/options.ts): decided at build with `--dev`. */
  dashboard: DashboardOption | undefined;
}

/** Everything registered on an app: its router tree (it is the root) and the app-wide settings. */
export interface AppState extends RouterBase {
  /** The app's main file: worker processes and Workers import it. */
  readonly mainFile: string;
  readonly config: Readonly<AppConfig>;
  /** @internal Features that add routes or server hooks to every build (src/plan/mount.ts), in order. */
  readonly mounts: readonly Mount[];
  /** @internal */
  readonly globalDependencies: Record<string, unknown>;
  /** @internal */
  readonly requestHeaderRules: readonly HeaderRule[];
  /** @internal */
  readonly responseHeaderRules: readonly HeaderRule[];
  /** @internal */
  readonly excludedHeaderPaths: ReadonlySet<string>;
  /** @internal */
  readonly startupHandlers: readonly LifecycleHandler[];
  /** @internal */
  readonly shutdownHandlers: readonly LifecycleHandler[];
  /** @internal Answer requests no route matched (static directories), in order. */
  readonly fallbacks: readonly FallbackHandler[];
  /** @internal */
  readonly exceptionHandler: ExceptionHandler | null;
  /** @internal Whether the app serves the MCP endpoint `/mcp` (src/mcp/mount.ts), for the OpenAPI document. */
  servesMcp?(): boolean;
  /** `app.cache`: the response cache's store and invalidation (src/cache/). */
  readonly cache: ResponseCache;
  /** @internal Set by `configureBroadcast` (src/websocket/redis-relay.ts). */
  readonly broadcastConfig: Required<BroadcastOptions> | null;
}
