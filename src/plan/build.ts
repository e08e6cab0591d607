import type { Server } from "bun";
import type { Webfw } from "../app.ts";
import { BodyBudget } from "../body/budget.ts";
import { Request } from "../http/request.ts";
import { withAccessLog } from "../log/access-log.ts";
import { logger } from "../log/logger.ts";
import type { GateConfig } from "../mcp/auth/gate.ts";
import {
  bindMcpRouteTools,
  gate,
  gateConfig,
  prepareMcpExtras,
  type RouteTool,
  wantsEndpoint,
} from "../mcp/mount-extras.ts";
import { openApiRoutes } from "../openapi/index.ts";
import { withRequestId } from "../request-id/echo.ts";
import { requestIdOf } from "../request-id/id.ts";
import { toWebResponse } from "../response/convert.ts";
import type { AfterMiddleware, BeforeMiddleware } from "../router/middleware.ts";
import type { RouterBase } from "../router/router-base.ts";
import {
  builtInPlan,
  compileRoute,
  type Dispatcher,
  type PipelineConfig,
  type RoutePlan,
  withHeaderRules,
} from "../serve/dispatch.ts";
import { errorDispatchers } from "../serve/error-dispatchers.ts";
import { type RouteTable, Runtime } from "../serve/fallback.ts";
import { fallbacksThroughPipeline } from "../serve/fallback-pipeline.ts";
import { type BunRoutes, constRoutes, nativeRoutes } from "../serve/native-routes.ts";
import { mountWebSockets, type WebSocketRuntime } from "../websocket/mount.ts";
import type { WorkerPool } from "../workers/pool.ts";
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
  /** WebSocket routes and Bun's `websocket` handler (src/websocket/); `null` when the app has none. */
  websocket: WebSocketRuntime | null;
  /** Routes exposed as MCP tools (`mcp` route option, `app.mcp.exposeRoutes`), bound to their dispatchers. */
  mcpRouteTools: RouteTool[];
}

/** Resolves every route against its routers, compiles its dispatcher and prepares const responses. */
export interface BuildOptions {
  /** Runs the handlers of `offload: true` routes off the main thread. */
  pool?: WorkerPool | null;
  /** One INFO line per request (not for const routes Bun serves by itself). */
  accessLog?: boolean;
}

export async function buildRuntime(app: Webfw, options: BuildOptions = {}): Promise<BuiltApp> {
  const pool = options.pool ?? null;
  const wrap = layers(app, options);
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
    logError: (error, request) =>
      logger.error("unhandled error in handler", {
        method: request.method,
        url: request.url,
        request_id: requestIdOf(request),
        error,
      }),
    dev: app.config.dev,
    requestTimeoutMs: app.config.requestTimeoutMs,
  };
  const tree = walkTree(app);
  const root: RouterBase[] = [app];
  // Route tools are described (and their names checked) before anything is compiled: a clash stops the start.
  const mcpExtras = prepareMcpExtras(app.mcp, tree.routes);
  const owned = [
    ...tree.routes,
    ...openApiRoutes(app).map((route) => ({ route, chain: root })),
    ...mcpExtras.routes.map((route) => ({ route, chain: root })),
  ];
  const { globalBefore, globalAfter } = tree;

  const table: RouteTable = new Map();
  const statics = new Map<string, WebResponse>();
  const plans: RoutePlan[] = [];
  for (const { route, chain } of owned) {
    const plan = planRoute(tree, chain, {
      pattern: route.path,
      method: route.method,
      handler: route.handler as (request: Request) => unknown,
      options: route.options,
      label: `${route.method} ${route.path}`,
    });
    checkRouteOptions(route);
    plans.push(plan);
    if (route.options.const) {
      const response = await constResponse(plan, config);
      // A per-request layer (request ids) needs JavaScript on every request: no static response then.
      const perRequest = app.config.requestId !== null;
      if (plan.before.length === 0 && plan.after.length === 0 && plan.auth === null && !perRequest) {
        // Served by Bun itself, so the application's response headers are baked in once here.
        const rules = config.excludedHeaderPaths.has(plan.pattern) ? [] : config.responseHeaders;
        statics.set(`${route.method} ${route.path}`, withHeaderRules(response.clone(), rules));
      }
      plan.handler = () => response.clone();
    }
    // Offload is opt-in (docs/workers.md): a Worker has its own copy of module state.
    if (pool && !route.options.const && route.options.offload === true) {
      const key = `${route.method} ${route.path}`;
      const deadline = plan.timeoutMs ?? app.config.requestTimeoutMs ?? 0;
      plan.invoke = (request) => pool.run(key, request, deadline);
    }
    const methods = table.get(route.path) ?? new Map<string, Dispatcher>();
    table.set(route.path, methods);
    methods.set(route.method, wrap(compileRoute(plan, config)));
  }

  const mcpRouteTools = bindMcpRouteTools(mcpExtras, table);
  if (wantsEndpoint(app.mcp, mcpRouteTools) && !table.has(MCP_PATH)) {
    const access = gateConfig(app.mcp, app.authHandler, mcpRouteTools);
    table.set(MCP_PATH, mcpDispatchers(app, globalBefore, globalAfter, config, access, wrap));
  }

  // WebSocket routes become the GET of their path; the upgrade runs the same before-middlewares and auth as a route there.
  const websocket = mountWebSockets({
    tree,
    options: app.config.websocket,
    hub: app.topicHub(),
    table,
    statics,
    config,
    wrap,
  });

  const errorDispatcher = errorDispatchers(globalBefore, globalAfter, config, wrap);
  const fallbacks = fallbacksThroughPipeline(app.fallbacks, globalBefore, globalAfter, config, wrap);
  const runtime = new Runtime(table, app.config.router, fallbacks, errorDispatcher);
  const handle = (raw: globalThis.Request, server: Server<unknown> | null) => runtime.handle(raw, server);
  const bunRoutes =
    app.config.router === "bun"
      ? nativeRoutes(table, statics, handle, (path) => runtime.patternFor(path))
      : constRoutes(table, statics, handle);
  return { bunRoutes, handle, runtime, plans, websocket, mcpRouteTools };
}

/**
 * The layers around every dispatcher, outermost first: the access log (so its duration and the id it
 * writes cover everything), then request ids. Only the layers that are on are built.
 */
function layers(app: Webfw, options: BuildOptions): (dispatcher: Dispatcher) => Dispatcher {
  const ids = app.config.requestId;
  return (dispatcher) => {
    let wrapped = dispatcher;
    if (ids !== null) wrapped = withRequestId(wrapped, ids);
    if (options.accessLog) wrapped = withAccessLog(wrapped);
    return wrapped;
  };
}

/** Computes a const route's response once; its body is buffered so every request gets the same bytes. */
async function constResponse(plan: RoutePlan, config: PipelineConfig): Promise<WebResponse> {
  const raw = new globalThis.Request(`http://localhost${plan.pattern}`, { method: plan.method });
  const request = new Request(raw, {});
  request.globalDependencies = config.globalDependencies;
  request.routerDependencies = plan.routerDependencies;
  const response = await toWebResponse(await plan.handler(request), raw);
  const body = response.status === 204 || response.status === 304 ? null : await response.arrayBuffer();
  return new globalThis.Response(body, response);
}

const MCP_PATH = "/mcp";

/**
 * `POST /mcp` (and 405 for GET/DELETE), with the app-global middlewares. The gate
 * (src/mcp/auth/gate.ts) answers 401/403 with the MCP authorization challenges first;
 * the MCP module reads the body itself, unless the gate had to look into it for
 * per-tool rules (then the pipeline reads it and the engine gets the same bytes).
 */
function mcpDispatchers(
  app: Webfw,
  before: BeforeMiddleware[],
  after: AfterMiddleware[],
  config: PipelineConfig,
  access: GateConfig,
  wrap: (dispatcher: Dispatcher) => Dispatcher,
): Map<string, Dispatcher> {
  const peeks = [...access.tools.values()].some((tool) => tool.authRequired || tool.scopes.length > 0);
  const allowed = async () => true; // the gate has decided
  const methods = new Map<string, Dispatcher>();
  // Every method reaches the endpoint, so its own 405 (`Allow: POST`) answers consistently.
  for (const method of ["POST", "GET", "DELETE", "PUT", "PATCH", "OPTIONS"]) {
    const plan = builtInPlan(
      MCP_PATH,
      method,
      async (request) => {
        const body = peeks && method === "POST" ? request.bodyBytes : null;
        const decision = await gate(request, body, access);
        if ("response" in decision) return decision.response;
        request.identity = decision.identity;
        return app.mcp.handle(request.raw, allowed, body ?? undefined);
      },
      before,
      after,
    );
    plan.rawBody = !peeks;
    methods.set(method, wrap(compileRoute(plan, config)));
  }
  return methods;
}
