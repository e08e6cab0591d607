import type { AppConfig, AppState, ExceptionHandler, LifecycleHandler } from "./app-state.ts";
import type { AuthenticationHandler } from "./auth/handler.ts";
import { type BackgroundBounds, resolveBackgroundBounds } from "./background/bounds.ts";
import { DEFAULT_BODY_READ_TIMEOUT_MS, defaultBodyBuffer } from "./body/budget.ts";
import { DEFAULT_FORM_LIMITS, type FormLimits } from "./body/forms.ts";
import { cacheMount } from "./cache/mount.ts";
import type * as CacheModule from "./cache/response-cache.ts";
import type { ResponseCache } from "./cache/response-cache.ts";
import type { CacheStore } from "./cache/store.ts";
import type * as ClientCall from "./client/call.ts";
import type { RawCallInput } from "./client/call.ts";
import type { AnyRoute, ClientResult, InputTuple } from "./client/route-types.ts";
import { compressionMount } from "./compression/mount.ts";
import { type CompressionOptions, resolveCompression } from "./compression/options.ts";
import { conditionalMount } from "./conditional/mount.ts";
import { type ResponseCheckMode, responseCheckMode } from "./contracts/mode.ts";
import { contractsMount } from "./contracts/mount.ts";
import { crossOriginMount } from "./cross-origin/mount.ts";
import { type CrossOriginSetting, checkCrossOriginSetting } from "./cross-origin/options.ts";
import { dashboardMount } from "./dashboard/mount.ts";
import { checkDashboardOption, type DashboardOption } from "./dashboard/options.ts";
import { type ProxyHeaders, resolveTrustProxy, type TrustProxy } from "./http/client-address.ts";
import { requestPath } from "./http/request-target.ts";
import { ipFilterMount } from "./ip-filter/mount.ts";
import type { IpFilterSetting } from "./ip-filter/options.ts";
import type { CronRun } from "./jobs/cron-runner.ts";
import { registerJobs } from "./jobs/lookup.ts";
import { jobsMount } from "./jobs/mount.ts";
import type { CronOptions, EnqueueOptions, JobHandler, JobOptions } from "./jobs/options.ts";
import type { FailedJob } from "./jobs/queue.ts";
import type * as JobsModule from "./jobs/system.ts";
import type { JobSystem } from "./jobs/system.ts";
import { type ServerHandle, type StartOptions, startServer } from "./launch/server.ts";
import { accessLogMount } from "./log/access-log-mount.ts";
import type { RouterEngine } from "./match/types.ts";
import type * as McpModule from "./mcp/index.ts";
import type { Mcp } from "./mcp/index.ts";
import { mcpMount, servesMcpEndpoint } from "./mcp/mount.ts";
import { type MetricsOptions, resolveMetricsOptions } from "./observability/metrics-options.ts";
import { observabilityMount } from "./observability/mount.ts";
import { openApiMount } from "./openapi/mount.ts";
import { resolveOpenApiOptions } from "./openapi/options.ts";
import type { OpenApiOptions } from "./openapi/types.ts";
import { type BuildOptions, type BuiltApp, buildRuntime } from "./plan/build.ts";
import type { Mount } from "./plan/mount.ts";
import { rateLimitMount } from "./rate-limit/mount.ts";
import { requestIdMount } from "./request-id/mount.ts";
import { type RequestIdOptions, resolveRequestIdOptions } from "./request-id/options.ts";
import type { ErrorFormat } from "./response/error-response.ts";
import { withVisibleContentType } from "./response/plain-text.ts";
import { refuseRenamedAppOptions } from "./router/renamed-options.ts";
import type { AppTypes, GlobalDepsOf, NoAppTypes } from "./router/route.ts";
import { Route } from "./router/route-handle.ts";
import { captureRouteSources } from "./router/route-source.ts";
import { RouterBase } from "./router/router-base.ts";
import { secureHeadersMount } from "./secure-headers/mount.ts";
import type * as SecureHeadersModule from "./secure-headers/options.ts";
import type { SecureHeadersOptions } from "./secure-headers/options.ts";
import { clientAddressMount } from "./serve/client-address-mount.ts";
import { checkedRule, type HeaderRule } from "./serve/header-rules.ts";
import type { FallbackHandler } from "./serve/runtime.ts";
import { checkTimeout } from "./serve/timeout.ts";
import { serverTimingMount } from "./server-timing/mount.ts";
import type * as StaticModule from "./static/serve-directory.ts";
import type { ServeDirectoryOptions } from "./static/serve-directory.ts";
import { resolveUploadBounds, type UploadBounds } from "./uploads/bounds.ts";
import { uploadsMount } from "./uploads/mount.ts";
import { webSocketMount } from "./websocket/mount.ts";
import {
  type BroadcastOptions,
  checkBroadcastOptions,
  resolveWebSocketOptions,
  type WebSocketOptions,
} from "./websocket/options.ts";
import { registerApp } from "./workers/worker-mode.ts";

export interface WebfwOptions {
  /** Route-matching engine (docs/routing-engines.md); default `bun`, the fastest in `bench/`. */
  router?: RouterEngine;
  /** Largest request body in bytes; larger gets 413. Default 10 MiB. */
  maxBodySize?: number;
  /**
   * Bytes of request bodies buffered across all requests of this process at once; a body that does
   * not fit gets 503 (`Retry-After: 1`) and its connection is closed. Default: 1/16 of the machine's
   * memory, between 64 MiB and 1 GiB (docs/security.md, "Body memory").
   */
  maxBodyBuffer?: number;
  /** Milliseconds a whole request body may take to arrive (408 and the connection closed after). Default 30 000; 0: no limit. Separate from the idle timeout. */
  bodyReadTimeoutMs?: number;
  /** Limits of form and multipart parsing. */
  formLimits?: Partial<FormLimits>;
  /** Streamed uploads in flight per process: `{ maxInFlight, maxBytesInFlight }` (docs/uploads.md#bounds). */
  uploads?: UploadBounds;
  /** Background tasks running and waiting per thread: `{ maxConcurrent, maxQueued }` (docs/events.md#bounds). */
  background?: BackgroundBounds;
  /** Show error stacks in 500 responses. Only for local development; `--dev` turns it on. */
  dev?: boolean;
  /**
   * Milliseconds a handler may take; a later answer is replaced by 503. Default 0: no limit. The
   * same option on a router and on a route overrides it there (docs/options.md#time-limits).
   */
  timeoutMs?: number;
  /** `GET /openapi.json` and `GET /docs` (on by default); `false` turns both off. See docs/openapi.md. */
  openapi?: false | OpenApiOptions;
  /** WebSocket limits: `maxPayloadLength`, `backpressureLimit`, `idleTimeout`, … (docs/websockets.md). */
  websocket?: WebSocketOptions;
  /**
   * Request ids (docs/request-ids.md): `true` echoes every request's id as `X-Request-Id` and writes
   * it in the access log. `request.id` works either way. Default off.
   */
  requestId?: boolean | RequestIdOptions;
  /**
   * Response compression: zstd, br and gzip from `Accept-Encoding`; `true` for the defaults or
   * `{ encodings, threshold, level }`. Off by default (docs/compression.md).
   */
  compression?: boolean | CompressionOptions;
  /**
   * Bodies of built-in errors (docs/errors.md): `"text"` (default, the spec's plain text) or
   * `"problem"`, RFC 9457 `application/problem+json` for every error webfw answers and every `HttpError`.
   */
  errors?: ErrorFormat;
  /**
   * A server span per request through `@opentelemetry/api`, recorded by the SDK the app registers
   * (`--otel` starts webfw's own and implies this). Default off: no layer, nothing loaded. docs/observability.md.
   */
  tracing?: boolean;
  /** `GET /metrics` for Prometheus (also `--metrics`): request durations, in-flight requests, pool, process. docs/observability.md. */
  metrics?: boolean | MetricsOptions;
  /**
   * Secure response headers (docs/security.md): HSTS over TLS, `nosniff`, frame-ancestors,
   * `Referrer-Policy`, COOP/CORP, `Permissions-Policy` and a CSP with a per-request nonce
   * (`request.cspNonce`). `true` for the defaults; route option `secureHeaders` changes or drops them. Default off.
   */
  secureHeaders?: boolean | SecureHeadersOptions;
  /**
   * Cross-site request protection of unsafe methods, on by default (docs/security.md): a browser's
   * cross-site POST/PUT/PATCH/DELETE gets 403 before its body is read. `false` turns it off;
   * `{ trustedOrigins }` lets more origins through (those the app's CORS allows already are).
   */
  csrf?: CrossOriginSetting;
  /**
   * Weak ETags on buffered GET answers and `If-None-Match` → 304 for every route (route option `etag`
   * overrides; `cacheControl` and `preconditions` are route options). Default off. docs/conditional-requests.md.
   */
  etag?: boolean;
  /**
   * A `Server-Timing` header with the request's timings (total, handler, your own `timing()` entries).
   * `true`: always; `"dev"`: only under `--dev`/`dev: true`. Default off: timings tell an attacker
   * about the server (docs/security.md). docs/observability.md.
   */
  serverTiming?: boolean | "dev";
  /**
   * Where cached answers are kept (docs/caching.md#stores): default a `RedisCacheStore` on
   * `configureBroadcast`'s Redis, else a `MemoryCacheStore` (64 MiB) per process.
   */
  cacheStore?: CacheStore;
  /**
   * Proxies in front of the app whose headers are believed (docs/client-address.md): `true` (all),
   * a hop count, or addresses/CIDR ranges. The one source of `request.ipAddr`, the URL's scheme and
   * host, rate-limit keys, logs, spans and IP filters. Default off: the socket's address.
   */
  trustProxy?: TrustProxy;
  /** Which headers those proxies write: `"x-forwarded"` (default: `X-Forwarded-For/-Proto/-Host`) or `"forwarded"` (RFC 7239). */
  proxyHeaders?: ProxyHeaders;
  /** Addresses and CIDR ranges allowed or denied on every route (docs/client-address.md#ip-filters); 403 before the body is read. */
  ipFilter?: IpFilterSetting;
  /**
   * Response contracts (docs/responses.md): what a handler's value that breaks its route's declared
   * `responses` schema gets. `"fail"` (default): 500 and an error log; `"log"`: the log, and the
   * value stripped to the schema is sent; `"off"`: nothing checked. Route option `responseCheck` overrides.
   */
  responseCheck?: ResponseCheckMode;
  /**
   * The development dashboard at `/_webfw` (docs/dashboard.md): on under `--dev`; `true` or
   * `{ path, auth }` also serves it in production, behind the app's authentication; `false` never.
   */
  dashboard?: DashboardOption;
}

export type { ExceptionHandler, LifecycleHandler } from "./app-state.ts";

/** The application (spec `Webfw(__file__)`). */
export class Webfw<T extends AppTypes = NoAppTypes> extends RouterBase<T, ""> implements AppState {
  /** The app's main file: worker processes and Workers import it. */
  readonly mainFile: string;
  /** The resolved options (src/app-state.ts); read-only after construction. */
  readonly config: Readonly<AppConfig>;
  private madeMcp: Mcp | null = null;
  /**
   * The Model Context Protocol endpoint (`POST /mcp`), active once something is registered. Made,
   * and its module loaded, on first use: an app that never touches it does not load MCP.
   */
  get mcp(): Mcp {
    this.madeMcp ??= new (require("./mcp/index.ts") as typeof McpModule).Mcp();
    return this.madeMcp;
  }
  /** @internal Whether a build serves `/mcp` (the OpenAPI document describes it). */
  servesMcp(): boolean {
    return servesMcpEndpoint({ get: () => this.mcp, made: () => this.madeMcp !== null }, this.allRoutes());
  }
  /** @internal The MCP endpoint's mount: `built.mounted(app.mcpMount)?.routeTools` lists the route tools. */
  readonly mcpMount = mcpMount(
    { get: () => this.mcp, made: () => this.madeMcp !== null },
    {
      topics: () => this.topicHub(),
      // With configureBroadcast (Redis), sessions and resource updates reach every process and machine.
      redis: () => this.broadcastConfig,
    },
  );
  /**
   * @internal Features that add routes or server hooks to every build (src/plan/mount.ts), in
   * order: their routes are compiled with the app's, then each installs itself.
   */
  readonly mounts: Mount[] = [];

  /** @internal */ readonly globalDependencies: Record<string, unknown> = {};
  /** @internal */ readonly requestHeaderRules: HeaderRule[] = [];
  /** @internal */ readonly responseHeaderRules: HeaderRule[] = [];
  /** @internal */ readonly excludedHeaderPaths = new Set<string>();
  /** @internal */ readonly startupHandlers: LifecycleHandler[] = [];
  /** @internal */ readonly shutdownHandlers: LifecycleHandler[] = [];
  /** @internal */ readonly fallbacks: FallbackHandler[] = [];
  /** @internal */ exceptionHandler: ExceptionHandler | null = null;
  private madeCache: ResponseCache | null = null;
  private readonly cacheStore: CacheStore | null;
  /**
   * The response cache (docs/caching.md): `app.cache.invalidate({ tags } | { key })`, `app.cache.store`.
   * Made, and src/cache/ loaded, on first use (idle memory, docs/performance.md).
   */
  get cache(): ResponseCache {
    this.madeCache ??= new (require("./cache/response-cache.ts") as typeof CacheModule).ResponseCache(
      this.cacheStore,
      () => this.broadcastConfig,
    );
    return this.madeCache;
  }
  /** @internal Set by `configureBroadcast` (src/websocket/redis-relay.ts). */
  broadcastConfig: Required<BroadcastOptions> | null = null;

  constructor(mainFile: string, options: WebfwOptions = {}) {
    super("");
    this.mainFile = mainFile;
    refuseRenamedAppOptions(options);
    const maxBodySize = options.maxBodySize ?? 10 * 1024 * 1024;
    if (!Number.isSafeInteger(maxBodySize) || maxBodySize <= 0)
      throw new TypeError("maxBodySize must be a positive integer");
    // Development features: the dashboard's route view shows where each route is registered.
    if (options.dev === true || (options.dashboard !== undefined && options.dashboard !== false))
      captureRouteSources();
    this.config = {
      router: options.router ?? "bun",
      maxBodySize,
      maxBodyBuffer: options.maxBodyBuffer ?? defaultBodyBuffer(),
      bodyReadTimeoutMs:
        options.bodyReadTimeoutMs === undefined
          ? DEFAULT_BODY_READ_TIMEOUT_MS
          : checkTimeout(options.bodyReadTimeoutMs, "bodyReadTimeoutMs"),
      formLimits: { ...DEFAULT_FORM_LIMITS, ...options.formLimits },
      uploads: resolveUploadBounds(options.uploads),
      background: resolveBackgroundBounds(options.background),
      dev: options.dev ?? false,
      timeoutMs: checkTimeout(options.timeoutMs, "timeoutMs"),
      openapi: resolveOpenApiOptions(options.openapi),
      websocket: resolveWebSocketOptions(options.websocket),
      requestId: resolveRequestIdOptions(options.requestId),
      compression: resolveCompression(options.compression),
      errors: options.errors ?? "text",
      tracing: options.tracing === true,
      metrics: resolveMetricsOptions(options.metrics),
      // The header tables load only when the option is given (start-up, docs/performance.md).
      secureHeaders:
        options.secureHeaders === undefined
          ? null
          : (require("./secure-headers/options.ts") as typeof SecureHeadersModule).resolveSecureHeaders(
              options.secureHeaders,
            ),
      csrf: checkCrossOriginSetting(options.csrf ?? true, "csrf"),
      etag: options.etag === true,
      serverTiming: options.serverTiming ?? false,
      client: resolveTrustProxy(options.trustProxy, options.proxyHeaders),
      responseCheck: responseCheckMode(options.responseCheck ?? "fail", "responseCheck"),
      dashboard: checkDashboardOption(options.dashboard),
    };
    if (typeof options.etag !== "boolean" && options.etag !== undefined)
      throw new TypeError("etag must be true or false");
    if (![true, false, "dev"].includes(this.config.serverTiming)) {
      throw new TypeError('serverTiming must be true, false or "dev"');
    }
    if (options.ipFilter !== undefined) this.ipFilter(options.ipFilter);
    // The app is the outermost router: its limit is the default of every route (src/plan/plan.ts).
    this.timeoutSetting = this.config.timeoutMs;
    if (this.config.errors !== "text" && this.config.errors !== "problem") {
      throw new TypeError(`errors must be "text" or "problem", got ${JSON.stringify(this.config.errors)}`);
    }
    if (!["bun", "ffi", "js"].includes(this.config.router)) {
      throw new TypeError(`unknown router engine '${this.config.router}' (expected "bun", "ffi" or "js")`);
    }
    this.cacheStore = options.cacheStore ?? null;
    // A store given is checked now (a mistake stops the construction, docs/caching.md#stores).
    if (this.cacheStore !== null) void this.cache;
    const webSockets = webSocketMount(this.config.websocket, () => this.topicHub());
    const uploads = uploadsMount(this);
    this.mounts.push(
      openApiMount(this),
      this.mcpMount,
      webSockets,
      jobsMount(() => this.jobSystem),
      // After the route-adding features: it sees every route they added; its modules load only when it is on.
      dashboardMount({
        option: () => this.config.dashboard,
        webSockets,
        hub: () => this.topicHub(),
      }),
      // The request path's features (docs/architecture.md, "Layers"), in this order: what they do to a
      // route's handler, then its guards (innermost first), then the layers around every dispatcher
      // (innermost first). Each loads its modules only when the app turns it on.
      contractsMount(this),
      uploads,
      cacheMount(this),
      conditionalMount(this),
      rateLimitMount(this),
      ipFilterMount(this),
      crossOriginMount(this),
      compressionMount(this),
      secureHeadersMount(this),
      requestIdMount(this),
      accessLogMount(),
      observabilityMount(this, uploads),
      clientAddressMount(this),
      serverTimingMount(this),
    );
    registerApp(this);
  }

  /** Values every request receives as `request.globalDependencies`. */
  injectGlobal(values: Partial<GlobalDepsOf<T>> & object): this {
    Object.assign(this.globalDependencies, values);
    return this;
  }

  /** Appends a header to every response (also 404/405/500). */
  addResponseHeader(name: string, value: string): this {
    this.responseHeaderRules.push(checkedRule(name, value, "append"));
    return this;
  }

  /** Sets a header on every response, replacing the value a handler gave it. */
  setResponseHeader(name: string, value: string): this {
    this.responseHeaderRules.push(checkedRule(name, value, "set"));
    return this;
  }

  /** The application's response headers are not added on these paths. */
  excludeResponseHeadersFor(paths: string[]): this {
    for (const path of paths) this.excludedHeaderPaths.add(path.length > 1 ? path.replace(/\/+$/, "") : path);
    return this;
  }

  /** Appends a header to every request before middlewares and handlers see it. */
  addRequestHeader(name: string, value: string): this {
    this.requestHeaderRules.push(checkedRule(name, value, "append"));
    return this;
  }

  /** Sets a header on every request, replacing the client's value. */
  setRequestHeader(name: string, value: string): this {
    this.requestHeaderRules.push(checkedRule(name, value, "set"));
    return this;
  }

  /**
   * Relays WebSocket `broadcast` through Redis pub/sub, so clients connected to
   * other processes and machines receive it too (docs/websockets.md).
   */
  configureBroadcast(options: BroadcastOptions): this {
    this.broadcastConfig = checkBroadcastOptions(options);
    return this;
  }

  private jobSystem: JobSystem | null = null;
  /** The app's schedules and jobs; the module (croner, BullMQ) loads with the first `cron`/`job` call. */
  private get jobs(): JobSystem {
    if (this.jobSystem === null) {
      const { JobSystem } = require("./jobs/system.ts") as typeof JobsModule;
      this.jobSystem = new JobSystem(() => this.broadcastConfig?.redisUrl ?? null);
      registerJobs(this.globalDependencies, this.jobSystem);
    }
    return this.jobSystem;
  }

  /**
   * Runs `fn` on a cron `schedule` (5 fields, or 6 with seconds first) once per tick across every
   * process and machine sharing the app's Redis; without Redis, once per machine. A run never
   * overlaps the previous one; missed ticks are skipped (docs/jobs.md).
   */
  cron(schedule: string, fn: (run: CronRun) => unknown, options: CronOptions): this {
    this.jobs.cron(schedule, fn, options);
    return this;
  }

  /**
   * Defines job `name`: `handler(data, job)` runs once for each `enqueue(name, data)`, on BullMQ
   * with the app's Redis (durable), else on an in-memory queue (docs/jobs.md).
   */
  job<D = unknown>(name: string, handler: JobHandler<D>, options?: JobOptions): this {
    this.jobs.job(name, handler as JobHandler, options);
    return this;
  }

  /** Queues job `name` with `data` (JSON-like, structured-clonable); resolves with the job's id once stored. */
  enqueue(name: string, data: unknown, options?: EnqueueOptions): Promise<string> {
    return this.jobs.enqueue(name, data, options);
  }

  /** The failed jobs of `name` that will not run again, newest first (at most `limit`, default 100). */
  failedJobs(name: string, options?: { limit?: number }): Promise<FailedJob[]> {
    return this.jobs.failed(name, options);
  }

  /** Turns every uncaught error (of any route, whenever registered) into a response: `fn(error, request)`. */
  exception(fn: ExceptionHandler): this {
    this.exceptionHandler = fn;
    return this;
  }

  /** Runs before the server accepts its first request; may be async. Usable as a call or a decorator-like wrapper. */
  startupHandler<F extends LifecycleHandler>(fn: F): F {
    this.startupHandlers.push(fn);
    return fn;
  }

  /** Runs when the server stops (after in-flight requests finish). */
  shutdownHandler<F extends LifecycleHandler>(fn: F): F {
    this.shutdownHandlers.push(fn);
    return fn;
  }

  /** Configures authentication for every route (sub-routers may override). */
  override configureAuthentication<C extends object>(handler: AuthenticationHandler<C>): this {
    return super.configureAuthentication(handler);
  }

  /**
   * Serves the files below `directoryPath` at `route` (GET/HEAD), with an
   * index file and optional listing. Routes win over files; nothing above the
   * directory is reachable.
   */
  serveDirectory(options: ServeDirectoryOptions): this {
    // The static-files module loads with the first directory served (idle memory, docs/performance.md).
    const { createDirectoryServer } = require("./static/serve-directory.ts") as typeof StaticModule;
    const serve = createDirectoryServer(options, this.config.compression);
    this.fallbacks.push((raw) => serve(raw, requestPath(raw.url)));
    return this;
  }

  /** Compiles the routes (done by `start()`; exposed for tools and tests). */
  build(options: BuildOptions = {}): Promise<BuiltApp> {
    return buildRuntime(this, options);
  }

  /**
   * Starts serving. Reads `--port`, `--host` and the other flags when the app
   * file is the program being run, and `WEBFW_HOST`/`WEBFW_PORT`; explicit
   * options win. Returns a handle with `port`, `url` and `stop()`.
   */
  start(options: StartOptions = {}): Promise<ServerHandle> {
    return startServer(this, options);
  }

  private inProcess: Promise<BuiltApp> | null = null;

  /**
   * Runs a request through the whole pipeline without a socket (a test client). Given a route
   * handle (what `app.get(...)` returns), it is a typed call, as `webfw/client` makes it:
   * `await app.request(getNote, { params: { id: 1 } })` resolves to `{ ok, status, data }` or the
   * route's error union (docs/client.md). Routes registered after the first call are not seen:
   * build again with `resetRequestClient()`.
   */
  request<R extends AnyRoute>(route: R, ...input: InputTuple<R>): Promise<ClientResult<R>>;
  request(input: string | globalThis.Request, init?: RequestInit): Promise<globalThis.Response>;
  async request(
    input: string | globalThis.Request | AnyRoute,
    init?: RequestInit | RawCallInput,
  ): Promise<globalThis.Response | unknown> {
    if (input instanceof Route) {
      // The typed client's module loads with the first typed call (idle memory, docs/performance.md).
      const { buildRequest, readResult } = require("./client/call.ts") as typeof ClientCall;
      const request = buildRequest(
        "http://localhost",
        input.method,
        input.path,
        init as RawCallInput | undefined,
      );
      return readResult(await this.request(request), input.method);
    }
    const raw =
      typeof input === "string"
        ? new globalThis.Request(new URL(input, "http://localhost").href, init as RequestInit | undefined)
        : input;
    this.inProcess ??= this.build();
    // A text answer's type is implied on the wire; in-process callers see it in the headers too.
    return withVisibleContentType(await (await this.inProcess).handle(raw, null));
  }

  /** Forgets the compiled routes of the in-process client (after registering more). */
  resetRequestClient(): void {
    this.inProcess = null;
  }
}
