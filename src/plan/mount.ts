/**
 * How a feature plugs into the build without the core naming it (docs/architecture.md, "Layers
 * and mounts"): its routes (OpenAPI, MCP, WebSockets, `/metrics`), what it does to each route's
 * handler (response contracts, upload admission, caches, ETags, Server-Timing's handler entry),
 * the guards around each compiled route (rate limits, IP filters, cross-site refusals) and the
 * layers around every dispatcher (compression, secure headers, request ids, the access log,
 * spans and metrics, the client address, Server-Timing). Each feature is a value from its own
 * folder (`src/<feature>/mount.ts`); the app lists them in order (src/app.ts) and
 * src/plan/build.ts asks each one at every build. A feature that is off answers `null` from
 * `prepare` without loading its modules (docs/performance.md, "Idle memory").
 */
import type { Server, WebSocketHandler } from "bun";
import type { Request } from "../http/request.ts";
import type { DispatchContext } from "../http/request-context.ts";
import type { TracingHooks } from "../observability/hooks.ts";
import type { Observability } from "../observability/index.ts";
import type { RouteInfo } from "../observability/route-info.ts";
import type { RouteRecord } from "../router/route.ts";
import type { RouterBase } from "../router/router-base.ts";
import type { Dispatcher, PipelineConfig, RoutePlan } from "../serve/dispatch.ts";
import type { RouteTable } from "../serve/runtime.ts";
import type { WorkerPool } from "../workers/pool.ts";
import type { RouterTree } from "./tree.ts";

/** A feature that contributes routes or run-time hooks to every build of the app. */
export interface Mount<E = unknown> {
  /** Names the feature in errors. */
  readonly name: string;
  /**
   * Called once per build, before any route is compiled; `null` when the feature is off (it
   * then costs nothing). May be async, so that a feature loads its modules only when used. The returned value carries this build's state, so two builds of one
   * app (the in-process client and `start()`) never share it.
   */
  prepare(tree: RouterTree, build: BuildFacts): MountBuild<E> | null | Promise<MountBuild<E> | null>;
}

/** Start-time decisions a mount may depend on. */
export interface BuildFacts {
  /** A development build (`--dev` or the app's `dev` option). */
  readonly dev: boolean;
  /** One access-log line per request (the server's `accessLog`). */
  readonly accessLog?: boolean;
  /** Tracing and metrics the server started (src/launch/server.ts); absent: the app's own options. */
  readonly observability?: Observability;
  /**
   * What every route compiles with (src/serve/dispatch.ts). Complete (with every mount's `pipeline`
   * part) before the first route or refusal compiles: read it when compiling, not in `prepare`.
   */
  readonly config: PipelineConfig;
  /** What the mounts' `pipeline.logFields` give for a request (`trace_id`, `span_id`); read per request. */
  logFields(context: DispatchContext | null | undefined): Record<string, string | undefined> | undefined;
}

/** A const route's answer in Bun's table: a static response, or a handler choosing among variants. */
export type ConstAnswer = globalThis.Response | ((request: globalThis.Request) => globalThis.Response);

/** A route's handler as the plan holds it (`RoutePlan.handler`). */
export type RouteHandler = (request: Request) => unknown;

/** One app route as the build hands it to the mounts (`route`, `handler`, `seesEveryRequest`). */
export interface PlannedRoute {
  readonly route: RouteRecord;
  /** The routers from the app down to the route's own. */
  readonly chain: readonly RouterBase[];
  /** `GET /path`, for messages. */
  readonly label: string;
  /** Its handler runs on a Worker (`offload: true` under `--workers`): `plan.invoke` calls it there. */
  readonly offloaded: boolean;
  /** Its handler's time limit in ms (the route's, its routers', the app's); 0: none. */
  readonly timeoutMs: number;
}

/** What a mount adds to the pipeline config every route compiles with (see `PipelineConfig`). */
export interface PipelineParts {
  onError?: PipelineConfig["onError"];
  tracing?: TracingHooks;
  /** Fields of the error log line of a request (`trace_id`, `span_id`). */
  logFields?(context: DispatchContext | null | undefined): Record<string, string | undefined>;
}

export interface MountBuild<E = unknown> {
  /**
   * Routes compiled with the app's own, as if registered on the app: the app-global
   * middlewares and, when a credential is sent, the app's authentication.
   */
  routes?: RouteRecord[];
  /** Added to the config every route compiles with, before the first one compiles. */
  pipeline?: PipelineParts;
  /**
   * Wraps the handler as the route's code gives it, before a const route's answer is computed and
   * before offloading (response contracts: a const answer is checked once, at start).
   */
  handler?(handler: RouteHandler, route: PlannedRoute): RouteHandler;
  /**
   * Per app route, once its handler is planned (offload decided): may wrap `plan.handler` or
   * `plan.invoke`, and returns what goes around its compiled dispatcher, or null. In mount order,
   * the first listed innermost. A wrap that keeps a host-blind dispatcher host-blind marks its
   * result itself (src/serve/host-blind.ts).
   */
  route?(plan: RoutePlan, route: PlannedRoute): ((dispatcher: Dispatcher) => Dispatcher) | null;
  /**
   * What mounts add (`"mounted"`: /mcp, upgrades, /metrics' siblings) and answers no route gives
   * (`"fallback"`: 404, 405, static files, errors) pass the app-level part of the guards: the
   * app's IP filter, and (mounted only) the app's rate limit.
   */
  appRoute?(dispatcher: Dispatcher, kind: "mounted" | "fallback", route?: RouteInfo): Dispatcher;
  /**
   * A const route Bun would answer by itself must stay in JavaScript: this feature must see each of
   * its requests (a limit, a filter, a header it sets, an id it gives).
   */
  seesEveryRequest?(route: PlannedRoute): boolean;
  /**
   * A layer around every dispatcher (app routes, mounted routes, 404s, static files), outside every
   * guard. In mount order, the first listed innermost. Layers never change an answer by the Host or
   * the target, so a host-blind route stays one under them.
   */
  layer?(dispatcher: Dispatcher, route?: RouteInfo): Dispatcher;
  /** Rewrites the const answers Bun serves by itself (compression: a compressed copy per encoding). */
  statics?(statics: ReadonlyMap<string, ConstAnswer>): Promise<Map<string, ConstAnswer>>;
  /** After every route is compiled: may add paths to the table or wrap its entries. */
  install?(context: MountContext): MountedFeature<E> | null;
  /** The server stops: release what this build opened (rate-limit and cache stores). */
  close?(): Promise<void> | void;
}

/** The build as a mount sees it while installing. */
export interface MountContext {
  readonly tree: RouterTree;
  /** Every compiled route by pattern and method (the app's, then earlier mounts'). */
  readonly table: RouteTable;
  /** Const responses Bun serves by itself, by `METHOD pattern`: delete one to see its requests in JS. */
  readonly statics: Map<string, globalThis.Response>;
  readonly config: PipelineConfig;
  /** The worker pool (`--workers N`), or `null`: features may run CPU-bound work on it (jobs). */
  readonly pool: WorkerPool | null;
  /** What an earlier mount of this build exports (the dashboard reads the WebSocket runtime). */
  mounted<E>(mount: Mount<E>): E | undefined;
  /**
   * Wraps a dispatcher as the build wraps every route's (access log, request ids, span, metrics);
   * `route` names it in spans, metrics and the access log.
   */
  wrap(dispatcher: Dispatcher, route?: RouteInfo): Dispatcher;
  /**
   * Compiles a framework-made route: only the app-global middlewares around `handler`, no
   * authentication (the feature decides). `rawBody` leaves the body unread for the handler.
   */
  builtIn(
    pattern: string,
    method: string,
    handler: (request: Request) => unknown,
    options?: { rawBody?: boolean },
  ): Dispatcher;
}

/** What a mounted feature needs from the running server. */
export interface MountedFeature<E = unknown> {
  /** Bun's `websocket` handler; at most one feature gives one. */
  websocket?: WebSocketHandler<unknown>;
  /**
   * Before the server listens, after the topic hub connected: connect what requests will need.
   * A rejection stops `start()` (nothing listens), as a bad `redisUrl` does.
   */
  starting?(): Promise<void>;
  /** The server listens (also what it listens on: `server.hostname`). */
  listening?(server: Server<unknown>): void;
  /** The server is stopping: close what would hold it open (before in-flight requests drain). */
  stopping?(): void;
  /** After in-flight requests drained, before the worker pool closes: wait for what `stopping` began. */
  closed?(): Promise<void>;
  /** What the feature shows to tools and tests (`built.mounted(mount)`). */
  exports?: E;
}
