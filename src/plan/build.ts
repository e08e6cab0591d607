/**
 * Start-time assembly of an app into what Bun serves: src/plan/tree.ts walks the routers,
 * src/plan/plan.ts plans each route, src/serve/ compiles and runs it. Names no feature: they
 * plug in through mounts (src/plan/mount.ts) and layers.
 */
import type { Server, WebSocketHandler } from "bun";
import type { AppState } from "../app-state.ts";
import { configureBackground } from "../background/tasks.ts";
import { BodyBudget } from "../body/budget.ts";
import { planCaches } from "../cache/plan.ts";
import type { CompressionLayer } from "../compression/index.ts";
import { conditionalRoute, usesConditional } from "../conditional/index.ts";
import { responseContract } from "../contracts/enforce.ts";
import { planCrossOrigin } from "../cross-origin/plan.ts";
import { Request } from "../http/request.ts";
import type { DispatchContext } from "../http/request-context.ts";
import { requestIdOf } from "../http/request-id.ts";
import { planIpFilters } from "../ip-filter/plan.ts";
import { withAccessLog } from "../log/access-log.ts";
import { logger } from "../log/logger.ts";
import { createObservability, type DispatcherWrap, type Observability } from "../observability/index.ts";
import { planRateLimits } from "../rate-limit/plan.ts";
import { withRequestId } from "../request-id/echo.ts";
import { toWebResponse } from "../response/convert.ts";
import { withVisibleContentType } from "../response/plain-text.ts";
import type { RouterBase } from "../router/router-base.ts";
import { planSecureHeaders } from "../secure-headers/plan.ts";
import { withClientAddress } from "../serve/client-address-layer.ts";
import {
  builtInPlan,
  compileRoute,
  type Dispatcher,
  type PipelineConfig,
  type RoutePlan,
  withHeaderRules,
} from "../serve/dispatch.ts";
import { type AnswerScope, errorDispatchers } from "../serve/error-dispatchers.ts";
import { fallbacksThroughPipeline } from "../serve/fallback-pipeline.ts";
import { isHostBlind, markHostBlind } from "../serve/host-blind.ts";
import { type BunRoutes, constRoutes, nativeRoutes } from "../serve/native-routes.ts";
import { type RouteTable, Runtime } from "../serve/runtime.ts";
import { serverTimingOn, timeHandler, withServerTiming } from "../server-timing/index.ts";
import { admitUploads } from "../uploads/admit.ts";
import { UploadGate } from "../uploads/gate.ts";
import type { WorkerPool } from "../workers/pool.ts";
import type { Mount, MountBuild, MountContext, MountedFeature } from "./mount.ts";
import { planRoute } from "./plan.ts";
import { checkRouteOptions } from "./route-option-checks.ts";
import { walkTree } from "./tree.ts";

type WebResponse = globalThis.Response;

/** The compiled application: what `Bun.serve` needs and the generic request path. */
export interface BuiltApp {
  /** Routes for Bun's native router (empty for the `js`/`ffi` engines). */
  bunRoutes: BunRoutes;
  /** Every request Bun's router did not answer; also the in-process client. */
  handle(raw: globalThis.Request, server: Server<unknown> | null): WebResponse | Promise<WebResponse>;
  runtime: Runtime;
  plans: RoutePlan[];
  /** Bun's `websocket` handler, from the mount that gives one (src/websocket/mount.ts). */
  websocket: WebSocketHandler<unknown> | undefined;
  /** The run-time side of every mounted feature (src/plan/mount.ts), in mount order. */
  features: MountedFeature[];
  /** What `mount` shows after this build (its `exports`); `undefined` when it mounted nothing. */
  mounted<E>(mount: Mount<E>): E | undefined;
  /** Tracing and metrics of this build (src/observability/): the server binds and closes them. */
  observability: Observability;
  /** Releases what the build opened (rate-limit and cache stores); the server calls it when it stops. */
  close(): Promise<void>;
}

/** What the server decides at start and passes to the build (the app's own config is never rewritten). */
export interface BuildOptions {
  /** Runs the handlers of `offload: true` routes off the main thread. */
  pool?: WorkerPool | null;
  /** One INFO line per request (not for const routes Bun serves by itself). */
  accessLog?: boolean;
  /** Error stacks in 500 responses (`--dev`); default: the app's `dev` option. */
  dev?: boolean;
  /** Mounts left out of this build, by name (`--disable-openapi` gives `openapi`). */
  disable?: ReadonlySet<string>;
  /**
   * Tracing and metrics (src/observability/): the server passes what its flags and the app's
   * options turn on; without it (`app.request()`), the app's own `tracing`/`metrics` options.
   */
  observability?: Observability;
}

/** Compression off: nothing wrapped, and src/compression/ is not loaded (idle memory, docs/performance.md). */
const NO_COMPRESSION: CompressionLayer = {
  wrap: (dispatcher) => dispatcher,
  statics: async (statics) => statics,
};

/**
 * The start-time assembly (docs/architecture.md): walks the router tree once, asks every mount
 * for its routes, plans and compiles one dispatcher per route and method, prepares const
 * responses, lets the mounts install themselves, and returns Bun's route table with the generic
 * request path (`handle`) behind it.
 */
export async function buildRuntime(app: AppState, options: BuildOptions = {}): Promise<BuiltApp> {
  const pool = options.pool ?? null;
  // Compression (src/compression/) innermost; when off it wraps nothing.
  const compression =
    app.config.compression === null
      ? NO_COMPRESSION
      : (await import("../compression/index.ts")).compressionLayer(app.config.compression);
  const observability =
    options.observability ??
    (await createObservability({
      tracing: app.config.tracing,
      metrics: app.config.metrics,
      supervised: false,
    }));
  const tree = walkTree(app);
  const secureHeaders = await planSecureHeaders(app.config.secureHeaders, tree.routes);
  const timing = serverTimingOn(app.config.serverTiming, options.dev ?? app.config.dev);
  const wrap = layers(app, options, compression, observability, secureHeaders, timing);
  // Background tasks of this thread follow the app's bounds (each Worker sets its own, src/workers/run-call.ts).
  configureBackground(app.config.background);
  const config: PipelineConfig = {
    maxBodySize: app.config.maxBodySize,
    // One budget per built app (per process): every route's body counts against it.
    bodyLimits: {
      budget: new BodyBudget(app.config.maxBodyBuffer),
      readTimeoutMs: app.config.bodyReadTimeoutMs,
    },
    formLimits: app.config.formLimits,
    requestHeaders: app.requestHeaderRules,
    responseHeaders: app.responseHeaderRules,
    excludedHeaderPaths: app.excludedHeaderPaths,
    globalDependencies: app.globalDependencies,
    exceptionHandler: app.exceptionHandler,
    logError: (error, raw, context) =>
      logger.error("unhandled error in handler", {
        method: raw.method,
        url: raw.url,
        request_id: requestIdOf(raw, context),
        ...logTraceIds(observability, context),
        error,
      }),
    onError: observability.recordError ?? undefined,
    tracing: observability.hooks ?? undefined,
    dev: options.dev ?? app.config.dev,
    timeoutMs: app.config.timeoutMs,
    errorFormat: app.config.errors,
  };
  const root: RouterBase[] = [app];
  // Features (OpenAPI, MCP, WebSockets, …) plug in here without this file naming them (src/plan/mount.ts).
  const mounts = app.mounts.filter((mount) => !options.disable?.has(mount.name));
  const builds: { mount: Mount; build: MountBuild | null }[] = [];
  const facts = { dev: options.dev ?? app.config.dev };
  for (const mount of mounts) builds.push({ mount, build: await mount.prepare(tree, facts) });
  const owned = [
    ...tree.routes,
    ...builds.flatMap(({ build }) => (build?.routes ?? []).map((route) => ({ route, chain: root }))),
    // `GET /metrics` when metrics are on (a GET the app registered on that path wins).
    ...observability.routes(takenGetPaths(tree.routes)).map((route) => ({ route, chain: root })),
  ];
  const { globalBefore, globalAfter } = tree;

  const table: RouteTable = new Map();
  const statics = new Map<string, WebResponse>();
  const plans: RoutePlan[] = [];
  const scopes = new Map<string, AnswerScope>();
  const rateLimits = planRateLimits(globalBefore, globalAfter, config);
  // One gate per built app (per process), made with its first streamed-upload route.
  let uploadGate: UploadGate | null = null;
  // Response caches (src/cache/): only routes with a `cache` setting get their handler wrapped.
  const caches = planCaches(app.cache);
  const crossOrigin = planCrossOrigin(app.config.csrf, globalBefore, globalAfter, config);
  // Behind trusted proxies the client's address is read from headers (docs/client-address.md).
  const forwarded = app.config.client !== null;
  const ipFilters = planIpFilters(globalBefore, globalAfter, config, forwarded);
  for (const { route, chain } of owned) {
    const plan = planRoute(tree, chain, {
      pattern: route.path,
      method: route.method,
      handler: route.handler as (request: Request) => unknown,
      options: route.options,
      label: `${route.method} ${route.path}`,
    });
    checkRouteOptions(route);
    // Declared response schemas checked and stripped (src/contracts/): no wrapper, no cost, without them.
    const contract = responseContract(route, app.config.responseCheck);
    if (contract !== null) plan.handler = contract(plan.handler);
    plans.push(plan);
    // A path's 204/405 answers run the middlewares of its first route (its routers', its path's).
    if (!scopes.has(route.path)) scopes.set(route.path, { before: plan.before, after: plan.after });
    const limit = rateLimits.limitOf(chain, route);
    const filters = ipFilters.filtersOf(chain, route);
    if (route.options.const) {
      const response = await constResponse(plan, config);
      // No static response when a layer must see each request: request ids, a rate limit, spans or
      // metrics (a request Bun answers without JavaScript would be missing from them).
      const perRequest =
        app.config.requestId !== null ||
        limit !== null ||
        filters.length > 0 ||
        observability.wrap !== null ||
        secureHeaders !== null ||
        timing ||
        usesConditional(route.options, app.config.etag, route.method);
      if (plan.before.length === 0 && plan.after.length === 0 && plan.auth === null && !perRequest) {
        // Served by Bun itself, so the application's response headers are baked in once here.
        const rules = config.excludedHeaderPaths.has(plan.pattern) ? [] : config.responseHeaders;
        statics.set(`${route.method} ${route.path}`, withHeaderRules(response.clone(), rules));
      }
      plan.handler = () => response.clone();
    }
    // Offload is opt-in (docs/workers.md): a Worker has its own copy of module state.
    const offloaded = pool !== null && !route.options.const && route.options.offload === true;
    if (pool && offloaded) {
      const key = `${route.method} ${route.path}`;
      const deadline = plan.timeoutMs ?? app.config.timeoutMs;
      plan.invoke = (request) => pool.run(key, request, deadline);
    }
    // Streamed uploads pass the app's upload gate (src/uploads/): only these routes count anything.
    if (route.options.body === "stream") {
      uploadGate ??= new UploadGate(app.config.uploads);
      plan.handler = admitUploads(plan.handler, uploadGate);
    }
    caches.apply(plan, chain, route, {
      offloaded,
      timeoutMs: plan.timeoutMs ?? app.config.timeoutMs,
    });
    // ETags, preconditions, Cache-Control (src/conditional/): null, and nothing per request, when unused.
    const conditional = conditionalRoute(plan, route.options, app.config.etag, {
      offloaded,
      constant: route.options.const === true,
    });
    const methods = table.get(route.path) ?? new Map<string, Dispatcher>();
    table.set(route.path, methods);
    // Server-Timing's `handler` entry (src/server-timing/): only when the header is sent.
    if (timing) timeHandler(plan);
    const base = compileRoute(plan, config);
    const compiled = conditional ? conditional.wrap(base) : base;
    // It reads only the conditional headers: a host-blind route stays one (src/serve/host-blind.ts).
    if (conditional && isHostBlind(base)) markHostBlind(compiled);
    // The IP filter before the limit: a refused address is not counted.
    const limited = ipFilters.apply(
      rateLimits.apply(compiled, limit, plan.auth, `${route.method} ${route.path}`, plan),
      filters,
    );
    // Cross-site requests are refused first, before they count against a limit or send a body.
    const guarded = crossOrigin.apply(limited, chain, route);
    const dispatcher = wrap(guarded, { method: route.method, pattern: route.path });
    // The layers `wrap` adds never change an answer by the Host or the target (the timer, the access
    // log, request ids, spans, compression: they read other headers, or only record), so they pass
    // the pending check on to the handler's first look. A limit keyed by the socket address keeps a
    // route host-blind; one whose key function reads the request does not (rate-limit/layer.ts).
    // Behind trusted proxies a limit's address is a header read: not host-blind then.
    if (isHostBlind(guarded) && !(forwarded && limit !== null)) markHostBlind(dispatcher);
    methods.set(route.method, dispatcher);
  }

  // What mounts add (/mcp, WebSocket upgrades) is under the app's own limit and filter.
  const appLimit = rateLimits.limitOf(root, null);
  const appFilters = ipFilters.filtersOf(root, null);
  // Answers no route gives (404, 405, static files) pass the app's filter too: a denied address gets 403.
  const appWrap: typeof wrap = (dispatcher, route) => wrap(ipFilters.apply(dispatcher, appFilters), route);
  const exported = new Map<Mount<unknown>, unknown>();
  const context: MountContext = {
    tree,
    mounted: <E>(mount: Mount<E>) => exported.get(mount) as E | undefined,
    table,
    statics,
    config,
    pool,
    wrap: (dispatcher, route) =>
      appWrap(
        rateLimits.apply(dispatcher, appLimit, app.authHandler, "the app", {
          method: route?.method ?? "",
          before: globalBefore,
          after: globalAfter,
        }),
        route,
      ),
    builtIn: (pattern, method, handler, builtInOptions) => {
      const plan = builtInPlan(pattern, method, handler, globalBefore, globalAfter);
      plan.rawBody = builtInOptions?.rawBody === true;
      return compileRoute(plan, config);
    },
  };
  const features: MountedFeature[] = [];
  for (const { mount, build } of builds) {
    const feature = build?.install?.(context) ?? null;
    if (feature === null) continue;
    features.push(feature);
    exported.set(mount, feature.exports);
  }
  const websockets = features.filter((feature) => feature.websocket !== undefined);
  if (websockets.length > 1) throw new Error("more than one feature gives Bun's websocket handler");

  // The trace context an offloaded call carries to its Worker, and the pool gauges of the metrics.
  if (pool && observability.callContext) pool.traceContext = observability.callContext;
  observability.bindSources({
    workerPool: pool ? () => pool.stats : undefined,
    uploads: uploadGate === null ? undefined : uploadGate.stats,
  });

  const errorDispatcher = errorDispatchers(globalBefore, globalAfter, config, appWrap);
  const fallbacks = fallbacksThroughPipeline(app.fallbacks, globalBefore, globalAfter, config, appWrap);
  const runtime = new Runtime(table, app.config.router, fallbacks, errorDispatcher, scopes);
  const handle = (raw: globalThis.Request, server: Server<unknown> | null) => runtime.handle(raw, server);
  const constAnswers = await compression.statics(statics);
  const bunRoutes =
    app.config.router === "bun"
      ? nativeRoutes(table, constAnswers, handle, (path) => runtime.patternFor(path))
      : constRoutes(table, constAnswers, handle);
  return {
    bunRoutes,
    handle,
    runtime,
    plans,
    websocket: websockets[0]?.websocket,
    features,
    mounted: <E>(mount: Mount<E>) => exported.get(mount) as E | undefined,
    observability,
    close: async () => {
      await rateLimits.close();
      await caches.close();
      for (const feature of features) await feature.closed?.();
    },
  };
}

/**
 * The layers around every dispatcher, outermost first: the server span and the request timer
 * (src/observability/: they see the whole request, and the access line can carry the trace id),
 * the access log (so its duration and the id it writes cover everything), then request ids;
 * `Server-Timing` (src/server-timing/) around all of them.
 * Only the layers that are on are built. `route` names the route for spans, metrics and the log.
 * Outside them all, with `trustProxy`, the client's address (src/serve/client-address-layer.ts):
 * spans and the access log read it too.
 */
function layers(
  app: AppState,
  options: BuildOptions,
  compression: CompressionLayer,
  observability: Observability,
  secureHeaders: DispatcherWrap | null,
  timing: boolean,
): DispatcherWrap {
  const ids = app.config.requestId;
  const observe = observability.wrap;
  const traceIds = observability.traceIds;
  const client = app.config.client;
  return (dispatcher, route) => {
    let wrapped = compression.wrap(dispatcher);
    // Outside compression, so the headers land on the final answer (src/secure-headers/).
    if (secureHeaders !== null) wrapped = secureHeaders(wrapped, route);
    if (ids !== null) wrapped = withRequestId(wrapped, ids);
    if (options.accessLog) wrapped = withAccessLog(wrapped, route, traceIds);
    if (observe) wrapped = observe(wrapped, route);
    if (client !== null) wrapped = withClientAddress(wrapped, client);
    // Outermost: `total` covers every other layer.
    if (timing) wrapped = withServerTiming(wrapped, observability.hooks);
    return wrapped;
  };
}

/** `trace_id`/`span_id` fields of an error log line, when tracing is on. */
function logTraceIds(
  observability: Observability,
  context: DispatchContext | null,
): Record<string, string | undefined> {
  const ids = observability.traceIds?.(context);
  return ids ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
}

/** GET paths the app registered itself: a built-in route (`/metrics`) never shadows one. */
function takenGetPaths(routes: readonly { route: { method: string; path: string } }[]): Set<string> {
  return new Set(routes.flatMap(({ route }) => (route.method === "GET" ? [route.path] : [])));
}

/** Computes a const route's response once; its body is buffered so every request gets the same bytes. */
async function constResponse(plan: RoutePlan, config: PipelineConfig): Promise<WebResponse> {
  const raw = new globalThis.Request(`http://localhost${plan.pattern}`, { method: plan.method });
  const request = new Request(raw, {});
  request.globalDependencies = config.globalDependencies;
  request.routerDependencies = plan.routerDependencies;
  // Copied below with its headers: the implied text type must be among them (src/response/plain-text.ts).
  const response = withVisibleContentType(await toWebResponse(await plan.handler(request), raw));
  const body = response.status === 204 || response.status === 304 ? null : await response.arrayBuffer();
  return new globalThis.Response(body, response);
}
