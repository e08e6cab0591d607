import type { Server } from "bun";
import type { Webfw } from "../app.ts";
import type { ArgSpec } from "../args/t.ts";
import type { AuthenticationHandler } from "../auth/handler.ts";
import { BodyBudget } from "../body/budget.ts";
import { Request } from "../http/request.ts";
import { requestProblem } from "../http/request-target.ts";
import { withAccessLog } from "../log/access-log.ts";
import { logger } from "../log/logger.ts";
import { bunRouteTable, nativeParamReader, type PatternFor } from "../match/bun-routes.ts";
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
import { toWebResponse } from "../response/convert.ts";
import { HttpError } from "../response/errors.ts";
import type { AfterMiddleware, BeforeMiddleware } from "../router/middleware.ts";
import { patternParams, type RouteRecord } from "../router/route.ts";
import type { RouterBase } from "../router/router-base.ts";
import {
  builtInPlan,
  compileRoute,
  type Dispatcher,
  type Params,
  type PipelineConfig,
  type RoutePlan,
  withHeaderRules,
} from "../serve/dispatch.ts";
import { decodeParams, type RouteTable, Runtime } from "../serve/fallback.ts";
import { checkTimeout } from "../serve/timeout.ts";
import { fallbacksThroughPipeline } from "../static/through-pipeline.ts";
import { mountWebSockets, type WebSocketRuntime } from "../websocket/mount.ts";
import type { WorkerPool } from "../workers/pool.ts";
import { checkRouteOptions } from "./route-option-checks.ts";

type WebResponse = globalThis.Response;
type BunHandler = (req: Bun.BunRequest, server: Server<unknown>) => WebResponse | Promise<WebResponse>;
export type BunRoutes = Record<string, Partial<Record<string, BunHandler | WebResponse>>>;

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

interface OwnedRoute {
  route: RouteRecord;
  chain: RouterBase[];
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
  const wrap = options.accessLog ? withAccessLog : (dispatcher: Dispatcher) => dispatcher;
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
      logger.error("unhandled error in handler", { method: request.method, url: request.url, error }),
    dev: app.config.dev,
    requestTimeoutMs: app.config.requestTimeoutMs,
  };
  const appRoutes = collectRoutes(app, [app]);
  // Route tools are described (and their names checked) before anything is compiled: a clash stops the start.
  const mcpExtras = prepareMcpExtras(app.mcp, appRoutes);
  const owned = [
    ...appRoutes,
    ...openApiRoutes(app).map((route) => ({ route, chain: [app] })),
    ...mcpExtras.routes.map((route) => ({ route, chain: [app] })),
  ];
  const scopedBefore = pathScoped(app, "before") as Map<string, BeforeMiddleware[]>;
  const scopedAfter = pathScoped(app, "after") as Map<string, AfterMiddleware[]>;
  const globalBefore = app.before.filter((m) => m.path === null).map((m) => m.fn);
  const globalAfter = app.after.filter((m) => m.path === null).map((m) => m.fn);

  const table: RouteTable = new Map();
  const statics = new Map<string, WebResponse>();
  const plans: RoutePlan[] = [];
  for (const { route, chain } of owned) {
    const routers = chain.slice(1);
    const plan: RoutePlan = {
      pattern: route.path,
      method: route.method,
      handler: route.handler as (request: Request) => unknown,
      before: [
        ...globalBefore,
        ...routers.flatMap((r) => r.before.filter((m) => m.path === null).map((m) => m.fn)),
        ...(scopedBefore.get(route.path) ?? []),
      ],
      after: [
        ...globalAfter,
        ...routers.flatMap((r) => r.after.filter((m) => m.path === null).map((m) => m.fn)),
        ...(scopedAfter.get(route.path) ?? []),
      ],
      auth: nearestAuth(chain),
      authRequired: route.options.authRequired === true,
      args: route.options.args && Object.keys(route.options.args).length > 0 ? route.options.args : null,
      pathParamNames: patternParams(route.path),
      body: route.options.body ?? null,
      rawBody: route.options.rawBody === true,
      timeoutMs:
        route.options.timeoutMs === undefined
          ? undefined
          : checkTimeout(route.options.timeoutMs, `timeoutMs of ${route.method} ${route.path}`),
      routerDependencies:
        routers.length > 0 ? Object.assign({}, ...routers.map((r) => r.dependencies)) : app.dependencies,
    };
    if (plan.authRequired && plan.auth === null) {
      throw new Error(`${route.method} ${route.path} has authRequired but no authentication is configured`);
    }
    validateArgs(plan);
    checkRouteOptions(route);
    plans.push(plan);
    if (route.options.const) {
      const response = await constResponse(plan, config);
      if (plan.before.length === 0 && plan.after.length === 0 && plan.auth === null) {
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
    table.set(MCP_PATH, mcpDispatchers(app, globalBefore, globalAfter, config, access));
  }

  // WebSocket routes become the GET of their path; the upgrade runs the same before-middlewares and auth as a route there.
  const websocket = mountWebSockets({
    root: app,
    options: app.config.websocket,
    hub: app.topicHub(),
    table,
    statics,
    config,
    wrap,
    scope: (chain, path) => ({
      before: [
        ...globalBefore,
        ...chain.slice(1).flatMap((r) => r.before.filter((m) => m.path === null).map((m) => m.fn)),
        ...(scopedBefore.get(path) ?? []),
      ],
      auth: nearestAuth(chain),
    }),
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

function collectRoutes(router: RouterBase, chain: RouterBase[]): OwnedRoute[] {
  return [
    ...router.routes.map((route) => ({ route, chain })),
    ...router.children.flatMap((child) => collectRoutes(child, [...chain, child])),
  ];
}

/** Path-scoped middlewares of the whole tree, by full pattern, in registration order per router. */
function pathScoped(router: RouterBase, kind: "before" | "after"): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  const visit = (node: RouterBase) => {
    for (const m of node[kind]) {
      if (m.path === null) continue;
      const list = out.get(m.path) ?? [];
      list.push(m.fn);
      out.set(m.path, list);
    }
    node.children.forEach(visit);
  };
  visit(router);
  return out;
}

function nearestAuth(chain: RouterBase[]): AuthenticationHandler | null {
  for (let i = chain.length - 1; i >= 0; i--) {
    const handler = (chain[i] as RouterBase).authHandler;
    if (handler) return handler;
  }
  return null;
}

function validateArgs(plan: RoutePlan): void {
  for (const [name, spec] of Object.entries(plan.args ?? {})) {
    if (typeof (spec as ArgSpec<unknown>)?.parse !== "function") {
      throw new TypeError(`args.${name} of ${plan.method} ${plan.pattern} is not a t.* spec`);
    }
  }
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

/** Bun's native route table: one function per method, or the static response of a const route. */
function nativeRoutes(
  table: RouteTable,
  statics: Map<string, WebResponse>,
  slowPath: BunHandler,
  patternFor: PatternFor,
  only?: Set<string>,
): BunRoutes {
  const routes: BunRoutes = {};
  const keys = bunRouteTable(table.keys());
  for (const [key, pattern] of keys) {
    if (only && !only.has(pattern)) continue;
    const methods = table.get(pattern) as Map<string, Dispatcher>;
    const entry: Partial<Record<string, BunHandler | WebResponse>> = {};
    const readParams = paramReader(pattern, patternFor);
    for (const [method, dispatcher] of methods) {
      const fixed = statics.get(`${method} ${pattern}`);
      entry[method] =
        fixed ?? ((req, server) => dispatchNative(dispatcher, req, server, readParams, slowPath));
    }
    routes[key] = entry;
  }
  return routes;
}

/**
 * The `js` and `ffi` engines match in JavaScript, but a const route on a fixed path still goes to
 * Bun's native table as a static response (DESIGN §2: "const routes: static Response, no JS at
 * all"): there is nothing to match. The other methods of that path go with it, exactly as the
 * `bun` engine serves them; everything else stays with the engine.
 */
function constRoutes(table: RouteTable, statics: Map<string, WebResponse>, slowPath: BunHandler): BunRoutes {
  const fixed = new Set<string>();
  for (const id of statics.keys()) {
    const pattern = id.slice(id.indexOf(" ") + 1);
    if (table.has(pattern) && patternParams(pattern).length === 0) fixed.add(pattern);
  }
  if (fixed.size === 0) return {};
  try {
    // Fixed paths only: Bun matched the target exactly, so there is nothing to re-match.
    return nativeRoutes(table, statics, slowPath, () => null, fixed);
  } catch {
    // A pattern Bun's table cannot take: the engine serves the const route too (from JavaScript).
    return {};
  }
}

/** The route's params, or `null` when the request must be re-routed by its resolved path. */
type ParamSource = (req: Bun.BunRequest) => Params | null;

/**
 * Bun matches the raw target but `req.url` holds it with dot segments resolved
 * (src/http/request-target.ts): `nativeParamReader` sends the requests where
 * they differ back to the generic path, which routes them as the `js` engine
 * does. Bun also decodes `req.params` itself and turns malformed escapes into
 * U+FFFD; the framework's contract is strict decoding, so percent-encoded
 * paths (and wildcards, whose capture Bun does not report) are re-read from
 * the raw path.
 */
function paramReader(pattern: string, patternFor: PatternFor): ParamSource {
  if (patternParams(pattern).length === 0) return () => ({});
  const read = nativeParamReader(pattern, patternFor);
  return (req) => {
    const bunParams = req.params as Params;
    const raw = read(req.url, bunParams);
    if (raw === null || raw === bunParams) return raw;
    return decodeParams(raw);
  };
}

function dispatchNative(
  dispatcher: Dispatcher,
  req: Bun.BunRequest,
  server: Server<unknown>,
  readParams: ParamSource,
  slowPath: BunHandler,
): WebResponse | Promise<WebResponse> {
  // A bad Host or target: the generic path answers 400 with the global middlewares and headers.
  if (requestProblem(req) !== null) return slowPath(req, server);
  let params: Params | null;
  try {
    params = readParams(req);
  } catch {
    // Malformed escapes: the generic path answers 400 with the global middlewares and headers.
    return slowPath(req, server);
  }
  return params === null ? slowPath(req, server) : dispatcher(req, server, params);
}

/**
 * Dispatchers for 404/405/400/OPTIONS that still run the app-global middlewares and headers.
 * `bare`: a request refused before routing (bad Host or target) gets only the response headers,
 * since no middleware may act on a request whose target is not trusted.
 */
function errorDispatchers(
  before: BeforeMiddleware[],
  after: AfterMiddleware[],
  config: PipelineConfig,
  wrap: (dispatcher: Dispatcher) => Dispatcher,
): (status: number, headers?: Record<string, string>, message?: string, bare?: boolean) => Dispatcher {
  const cache = new Map<string, Dispatcher>();
  return (status, headers = {}, message, bare = false) => {
    const key = `${status} ${JSON.stringify(headers)} ${message ?? ""} ${bare}`;
    let dispatcher = cache.get(key);
    if (!dispatcher) {
      const handler =
        status === 204
          ? () => new globalThis.Response(null, { status: 204, headers })
          : () => {
              throw new HttpError(status, message, headers);
            };
      dispatcher = wrap(
        compileRoute(builtInPlan("", "GET", handler, bare ? [] : before, bare ? [] : after), config),
      );
      if (cache.size < 256) cache.set(key, dispatcher);
    }
    return dispatcher;
  };
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
    methods.set(method, compileRoute(plan, config));
  }
  return methods;
}
