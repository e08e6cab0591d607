/**
 * How a feature plugs its own routes into the build without the core naming
 * it (docs/architecture.md: "features plug in as values … through the planner"). OpenAPI
 * (src/openapi/mount.ts), MCP (src/mcp/mount.ts) and WebSockets
 * (src/websocket/mount.ts) are mounts; the app lists them (src/app.ts) and
 * src/plan/build.ts asks each one at every build.
 */
import type { Server, WebSocketHandler } from "bun";
import type { Request } from "../http/request.ts";
import type { RouteInfo } from "../observability/route-info.ts";
import type { RouteRecord } from "../router/route.ts";
import type { Dispatcher, PipelineConfig } from "../serve/dispatch.ts";
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
}

export interface MountBuild<E = unknown> {
  /**
   * Routes compiled with the app's own, as if registered on the app: the app-global
   * middlewares and, when a credential is sent, the app's authentication.
   */
  routes?: RouteRecord[];
  /** After every route is compiled: may add paths to the table or wrap its entries. */
  install?(context: MountContext): MountedFeature<E> | null;
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
