/**
 * Start-time assembly of an app into what Bun serves: src/plan/tree.ts walks the routers,
 * src/plan/plan.ts plans each route, src/serve/ compiles and runs it. Names no feature: they
 * plug in through mounts (src/plan/mount.ts) and layers.
 */
import type { Server, WebSocketHandler } from "bun";
import type { AppState } from "../app-state.ts";
import { configureBackground } from "../background/tasks.ts";
import { BodyBudget } from "../body/budget.ts";
import { Request } from "../http/request.ts";
import { requestIdOf } from "../http/request-id.ts";
import { logger } from "../log/logger.ts";
import type { Observability } from "../observability/index.ts";
import type { RouteInfo } from "../observability/route-info.ts";
import { toWebResponse } from "../response/convert.ts";
import { withVisibleContentType } from "../response/plain-text.ts";
import type { RouterBase } from "../router/router-base.ts";
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
import type { WorkerPool } from "../workers/pool.ts";
import type {
  BuildFacts,
  ConstAnswer,
  Mount,
  MountBuild,
  MountContext,
  MountedFeature,
  PlannedRoute,
} from "./mount.ts";
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

/**
 * The start-time assembly (docs/architecture.md): walks the router tree once, asks every mount
 * what it adds (routes, handler wraps, guards, layers), plans and compiles one dispatcher per
 * route and method, prepares const responses, lets the mounts install themselves, and returns
 * Bun's route table with the generic request path (`handle`) behind it. It names no feature:
 * each one is a mount the app lists (src/app.ts), in the order of docs/architecture.md, "Layers".
 */
export async function buildRuntime(app: AppState, options: BuildOptions = {}): Promise<BuiltApp> {
  const pool = options.pool ?? null;
  const dev = options.dev ?? app.config.dev;
  const tree = walkTree(app);
  const { globalBefore, globalAfter } = tree;
  // Background tasks of this thread follow the app's bounds (each Worker sets its own, src/workers/run-call.ts).
  configureBackground(app.config.background);
  const logFields: NonNullable<NonNullable<MountBuild["pipeline"]>["logFields"]>[] = [];
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
        ...Object.assign({}, ...logFields.map((fields) => fields(context))),
        error,
      }),
    dev,
    timeoutMs: app.config.timeoutMs,
    errorFormat: app.config.errors,
  };
  const root: RouterBase[] = [app];
  // Features plug in here without this file naming them (src/plan/mount.ts), in the app's order.
  const mounts = app.mounts.filter((mount) => !options.disable?.has(mount.name));
  const facts: BuildFacts = {
    dev,
    accessLog: options.accessLog === true,
    observability: options.observability,
    config,
    logFields: (context) =>
      logFields.length === 0 ? undefined : Object.assign({}, ...logFields.map((fields) => fields(context))),
  };
  const builds: { mount: Mount; build: MountBuild }[] = [];
  for (const mount of mounts) {
    const build = await mount.prepare(tree, facts);
    if (build !== null) builds.push({ mount, build });
  }
  // What the mounts add to the pipeline, before anything compiles.
  for (const { build } of builds) {
    const parts = build.pipeline;
    if (parts === undefined) continue;
    if (parts.onError) config.onError = parts.onError;
    if (parts.tracing) config.tracing = parts.tracing;
    if (parts.logFields) logFields.push(parts.logFields);
  }
  const handlerWraps = builds.flatMap(({ build }) => (build.handler ? [build.handler.bind(build)] : []));
  const routeHooks = builds.flatMap(({ build }) => (build.route ? [build.route.bind(build)] : []));
  const watchers = builds.flatMap(({ build }) =>
    build.seesEveryRequest ? [build.seesEveryRequest.bind(build)] : [],
  );
  const appGuards = builds.flatMap(({ build }) => (build.appRoute ? [build.appRoute.bind(build)] : []));
  const layerList = builds.flatMap(({ build }) => (build.layer ? [build.layer.bind(build)] : []));
  // The layers around every dispatcher, the first listed innermost (docs/architecture.md, "Layers").
  const wrap = (dispatcher: Dispatcher, route?: RouteInfo): Dispatcher => {
    let wrapped = dispatcher;
    for (const layer of layerList) wrapped = layer(wrapped, route);
    return wrapped;
  };
  const owned = [
    ...tree.routes,
    ...builds.flatMap(({ build }) => (build.routes ?? []).map((route) => ({ route, chain: root }))),
  ];

  const table: RouteTable = new Map();
  const statics = new Map<string, WebResponse>();
  const plans: RoutePlan[] = [];
  const scopes = new Map<string, AnswerScope>();
  for (const { route, chain } of owned) {
    const plan = planRoute(tree, chain, {
      pattern: route.path,
      method: route.method,
      handler: route.handler as (request: Request) => unknown,
      options: route.options,
      label: `${route.method} ${route.path}`,
    });
    checkRouteOptions(route);
    // Offload is opt-in (docs/workers.md): a Worker has its own copy of module state.
    const offloaded = pool !== null && !route.options.const && route.options.offload === true;
    const planned: PlannedRoute = {
      route,
      chain,
      label: `${route.method} ${route.path}`,
      offloaded,
      timeoutMs: plan.timeoutMs ?? app.config.timeoutMs,
    };
    // What wraps the handler's own value (response contracts: a const answer is checked at start).
    for (const wrapHandler of handlerWraps) plan.handler = wrapHandler(plan.handler, planned);
    plans.push(plan);
    // A path's 204/405 answers run the middlewares of its first route (its routers', its path's).
    if (!scopes.has(route.path)) scopes.set(route.path, { before: plan.before, after: plan.after });
    if (route.options.const) {
      const response = await constResponse(plan, config);
      // No static response when a feature must see each request: request ids, a rate limit, spans or
      // metrics (a request Bun answers without JavaScript would be missing from them).
      const perRequest = watchers.some((sees) => sees(planned));
      if (plan.before.length === 0 && plan.after.length === 0 && plan.auth === null && !perRequest) {
        // Served by Bun itself, so the application's response headers are baked in once here.
        const rules = config.excludedHeaderPaths.has(plan.pattern) ? [] : config.responseHeaders;
        statics.set(`${route.method} ${route.path}`, withHeaderRules(response.clone(), rules));
      }
      plan.handler = () => response.clone();
    }
    if (pool && offloaded) {
      const key = `${route.method} ${route.path}`;
      const deadline = plan.timeoutMs ?? app.config.timeoutMs;
      plan.invoke = (request) => pool.run(key, request, deadline);
    }
    // Each feature may wrap the planned handler, and says what goes around the compiled route.
    const guards: ((dispatcher: Dispatcher) => Dispatcher)[] = [];
    for (const hook of routeHooks) {
      const guard = hook(plan, planned);
      if (guard !== null) guards.push(guard);
    }
    let guarded = compileRoute(plan, config);
    for (const guard of guards) guarded = guard(guarded);
    const methods = table.get(route.path) ?? new Map<string, Dispatcher>();
    table.set(route.path, methods);
    const dispatcher = wrap(guarded, { method: route.method, pattern: route.path });
    // Layers never change an answer by the Host or the target (src/plan/mount.ts): they pass the
    // pending check on to the handler's first look; guards keep or drop the mark themselves.
    if (isHostBlind(guarded)) markHostBlind(dispatcher);
    methods.set(route.method, dispatcher);
  }

  // Guards of the app level: what mounts add is under the app's own limit and filter; answers no
  // route gives (404, 405, static files) pass the app's filter too (a denied address gets 403).
  const guardApp = (dispatcher: Dispatcher, kind: "mounted" | "fallback", route?: RouteInfo): Dispatcher => {
    let guarded = dispatcher;
    for (const guard of appGuards) guarded = guard(guarded, kind, route);
    return guarded;
  };
  const appWrap = (dispatcher: Dispatcher, route?: RouteInfo) =>
    wrap(guardApp(dispatcher, "fallback", route), route);
  const exported = new Map<Mount<unknown>, unknown>();
  const context: MountContext = {
    tree,
    mounted: <E>(mount: Mount<E>) => exported.get(mount) as E | undefined,
    table,
    statics,
    config,
    pool,
    wrap: (dispatcher, route) => wrap(guardApp(dispatcher, "mounted", route), route),
    builtIn: (pattern, method, handler, builtInOptions) => {
      const plan = builtInPlan(pattern, method, handler, globalBefore, globalAfter);
      plan.rawBody = builtInOptions?.rawBody === true;
      return compileRoute(plan, config);
    },
  };
  const features: MountedFeature[] = [];
  for (const { mount, build } of builds) {
    const feature = build.install?.(context) ?? null;
    if (feature === null) continue;
    features.push(feature);
    exported.set(mount, feature.exports);
  }
  const websockets = features.filter((feature) => feature.websocket !== undefined);
  if (websockets.length > 1) throw new Error("more than one feature gives Bun's websocket handler");

  const errorDispatcher = errorDispatchers(globalBefore, globalAfter, config, appWrap);
  const fallbacks = fallbacksThroughPipeline(app.fallbacks, globalBefore, globalAfter, config, appWrap);
  const runtime = new Runtime(table, app.config.router, fallbacks, errorDispatcher, scopes);
  const handle = (raw: globalThis.Request, server: Server<unknown> | null) => runtime.handle(raw, server);
  let constAnswers: ReadonlyMap<string, ConstAnswer> = statics;
  for (const { build } of builds) if (build.statics) constAnswers = await build.statics(constAnswers);
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
    close: async () => {
      for (const { build } of builds) await build.close?.();
      for (const feature of features) await feature.closed?.();
    },
  };
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
