import type { Server } from "bun";
import type { AppState } from "../app-state.ts";
import { drainBackground } from "../background/tasks.ts";
import { DASHBOARD_WORKER_ENV, resolveDashboard } from "../dashboard/options.ts";
import { inDiscoverMode, isEmbedded } from "../embed/embedded.ts";
import type * as EmbeddedWrites from "../embed/embedded-writes.ts";
import { logger } from "../log/logger.ts";
import { startTelemetry } from "../observability/start.ts";
import { type BuiltApp, buildRuntime } from "../plan/build.ts";
import type * as ProblemDetails from "../problem/details.ts";
import { CHILD_INDEX_ENV } from "../process/env.ts";
import { onShutdownSignal } from "../process/shutdown.ts";
import { textResponse } from "../response/error-response.ts";
import {
  bunServeTransport,
  explainListenError,
  type ResolvedTransport,
  resolveTransport,
} from "../transport/options.ts";
import { inWorkerMode } from "../workers/worker-mode.ts";
import { announceListening } from "./announce.ts";
import type * as Open from "./open.ts";
import { prepareStart, type StartPlan } from "./prepare-start.ts";
import { type ResolvedStart, resolveStart, type StartOptions } from "./start-options.ts";

export type { StartOptions } from "./start-options.ts";

/** A running server. */
export interface ServerHandle {
  readonly port: number;
  readonly hostname: string;
  /** `http://host:port`, or `https://host:port` with TLS */
  readonly url: string;
  readonly server: Server<unknown>;
  /** Stops accepting, lets in-flight requests finish (up to the drain timeout), then runs the shutdown handlers. */
  stop(force?: boolean): Promise<void>;
}

const DEFAULT_DRAIN_MS = 10_000;

/** Builds the app, runs its startup handlers, then listens with `Bun.serve`. */
export async function startServer(app: AppState, options: StartOptions): Promise<ServerHandle> {
  if (inWorkerMode()) return workerModeHandle();
  // `webfw build` imported the app only to list its directories (src/launch/embed.ts): stop before listening.
  if (inDiscoverMode()) process.exit(0);
  // Flags are read when the app file is the program run (`bun app.ts --port 9000`), or when passed explicitly.
  let plan: StartPlan | undefined;
  if (options.argv !== undefined || Bun.main === app.mainFile) {
    const decision = await prepareStart({ argv: options.argv });
    if (decision.action === "exit") process.exit(decision.code); // help, version, bad flag (2), supervisor or dev watcher done
    plan = decision.plan;
  }
  const start = resolveStart(app, options, plan);
  // TLS files are read before anything starts, so a bad path fails here with its name.
  const transport = await resolveTransport(options, plan?.flags);
  // Tracing and metrics (src/observability/): the SDK starts before the pool, whose Workers start theirs.
  // The dashboard (docs/dashboard.md) records spans in memory: tracing is on with it, and the
  // handler Workers record theirs for it.
  const dashboard = resolveDashboard(app.config.dashboard, start.dev) !== null;
  if (dashboard && start.workers > 1) process.env[DASHBOARD_WORKER_ENV] = "1";
  const telemetry = await startTelemetry(
    dashboard ? { mainFile: app.mainFile, config: { tracing: true, metrics: app.config.metrics } } : app,
    plan?.flags,
    plan?.role === "supervised-child",
  );
  // The pool's module loads only when there are Workers to run (idle memory, docs/performance.md).
  const pool =
    start.workers > 1
      ? new (await import("../workers/pool.ts")).WorkerPool(app.mainFile, start.workers)
      : null;
  // `app.publish`/`app.subscribe` in an offloaded handler go through the main thread's hub (server, relay).
  if (pool) pool.topics = app.topicHub();
  let built: BuiltApp | null = null;
  let server: Server<unknown>;
  try {
    await pool?.ready();
    // Start-time decisions go to the build as options; the app's own config is never rewritten.
    built = await buildRuntime(app, {
      pool,
      accessLog: start.accessLog && logger.enabled("INFO"),
      dev: start.dev,
      disable: plan?.flags.disableOpenapi ? new Set(["openapi"]) : undefined,
      observability: telemetry.observability,
    });
    // Topics (src/topics/): connect the Redis relay before listening, so a bad redisUrl fails start().
    await app.topicHub().start(app.broadcastConfig);
    for (const feature of built.features) await feature.starting?.();
    for (const handler of app.startupHandlers) await handler();
    server = listen(app, start, built, transport);
  } catch (error) {
    // Nothing may outlive a failed start: Workers, the Redis relay, native matchers.
    app.topicHub().stop();
    built?.runtime.close();
    await built?.close();
    await pool?.close();
    await telemetry.close();
    throw error;
  }
  // Assigned in the try above, which rethrows on failure.
  const compiled = built as BuiltApp;
  for (const feature of compiled.features) feature.listening?.(server);
  app.topicHub().attach(server);
  // Bun counts the open WebSockets of the server (the metrics' connection gauge reads it).
  telemetry.observability.bindSources({ websocketConnections: () => server.pendingWebSockets });

  let stopping: Promise<void> | null = null;
  const stop = (force = false): Promise<void> => {
    stopping ??= (async () => {
      // What would hold the server open (open WebSockets: 1001 going away) is closed first.
      for (const feature of compiled.features) feature.stopping?.();
      const drainMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_MS;
      const drainUntil = performance.now() + drainMs;
      const drained = server.stop(force);
      // A timer, cleared once drained: a pending sleep would keep the process alive for the whole
      // drain timeout after `stop()` resolved (issue 31; docs/routing.md, the handle's `stop`).
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), drainMs);
      });
      const outcome = await Promise.race([drained, timeout]);
      clearTimeout(timer);
      if (outcome === "timeout") await server.stop(true);
      // Background tasks of the drained requests finish within what is left of the drain timeout,
      // before the shutdown handlers close what they may use (src/background/).
      await drainBackground(force ? 0 : drainUntil - performance.now());
      compiled.runtime.close();
      await compiled.close();
      await pool?.close();
      app.topicHub().stop();
      for (const handler of app.shutdownHandlers) {
        try {
          await handler();
        } catch (error) {
          console.error("shutdown handler failed:", error);
        }
      }
      // Last, so that spans of the drain and the shutdown handlers are exported too.
      await telemetry.close();
    })();
    return stopping;
  };

  const hostname = server.hostname ?? start.host;
  const port = server.port ?? start.port;
  const handle: ServerHandle = {
    port,
    hostname,
    url: `${transport.scheme}://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`,
    server,
    stop,
  };
  if (start.handleSignals) onShutdownSignal(() => stop());
  // The startup line, once per app however many processes serve it (src/launch/announce.ts).
  announceListening(handle.url, start.workers, plan?.role === "supervised-child");
  // A binary that wrote under its embedded root lost that data to /$bunfs on the real disk (docs/deployment.md).
  // (Both modules below load only where they have something to do: start-up, docs/performance.md.)
  if (isEmbedded(Bun.main) && (plan?.role !== "supervised-child" || process.env[CHILD_INDEX_ENV] === "0"))
    (require("../embed/embedded-writes.ts") as typeof EmbeddedWrites).warnEmbeddedWrites(Bun.main, logger);
  if (plan?.openBrowser) {
    const { browserUrl, openUrl } = require("./open.ts") as typeof Open;
    openUrl(browserUrl(hostname, port, transport.scheme));
  }
  return handle;
}

/**
 * Inside a handler Worker the app file is imported only for its handlers:
 * nothing listens. The handle resolves (a top-level `await app.start()` must
 * not block the import) but serves nothing.
 */
function workerModeHandle(): Promise<ServerHandle> {
  return Promise.resolve({
    port: 0,
    hostname: "",
    url: "",
    get server(): Server<unknown> {
      throw new Error("no server inside a handler Worker");
    },
    stop: async () => {},
  });
}

function listen(
  app: AppState,
  start: ResolvedStart,
  built: BuiltApp,
  transport: ResolvedTransport,
): Server<unknown> {
  try {
    return serve(app, start, built, transport);
  } catch (error) {
    throw explainListenError(error, transport);
  }
}

function serve(
  app: AppState,
  start: ResolvedStart,
  built: BuiltApp,
  transport: ResolvedTransport,
): Server<unknown> {
  const maxBodySize = app.config.maxBodySize;
  return Bun.serve({
    // TLS, HTTP/2, HTTP/3 (src/transport/): no keys at all when they are off.
    ...bunServeTransport(transport),
    hostname: start.host,
    port: start.port,
    reusePort: start.reusePort,
    // Slow or stalled clients (keep-alive, bodies): Bun closes them after this many seconds.
    idleTimeout: start.idleTimeout,
    // Bun's own limit is only a backstop: webfw answers 413 itself (with its headers) below it. Routes
    // that stream their body (`body: "stream"`, `rawBody`) take more than maxBodySize and keep their
    // own limits (request.parts(): maxTotalSize, docs/uploads.md), so the backstop steps aside for them.
    maxRequestBodySize: built.plans.some((plan) => plan.rawBody === true)
      ? Number.MAX_SAFE_INTEGER
      : Math.min(maxBodySize * 2 + 1024 * 1024, 2 ** 32),
    // Bun's HTML error page shows stacks; it is never on unless --dev.
    development: start.dev,
    routes: built.bunRoutes,
    fetch: (request, srv) => built.handle(request, srv),
    // Bun's handler for every WebSocket route, with the app's limits (maxPayloadLength, backpressureLimit, …).
    websocket: built.websocket,
    error(error) {
      console.error("unhandled error:", error);
      // Bun's last resort gives no request: the problem has no instance or request id.
      if (app.config.errors === "problem") {
        const { problemResponse } = require("../problem/details.ts") as typeof ProblemDetails;
        return problemResponse({ type: "about:blank", title: "Internal Server Error", status: 500 });
      }
      return textResponse(500, "Internal Server Error");
    },
  });
}
