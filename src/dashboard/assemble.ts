/**
 * The dashboard when it is on (docs/dashboard.md): loaded by src/dashboard/mount.ts with a dynamic
 * import, so an app whose dashboard is off never loads this file or anything it imports.
 */
import type { Server } from "bun";
import type { Request } from "../http/request.ts";
import type { Mount, MountBuild } from "../plan/mount.ts";
import type { RouterTree } from "../plan/tree.ts";
import type { HttpMethod, RouteRecord } from "../router/route.ts";
import type { TopicHub } from "../topics/hub.ts";
import type { WebSocketRuntime } from "../websocket/runtime.ts";
import {
  type DashboardApi,
  infoOf,
  LiveStreams,
  listRequests,
  requestDetail,
  socketsOf,
  statsOf,
} from "./api.ts";
import { describeRoutes, type RouteView } from "./describe-routes.ts";
import { tapLogs } from "./log-tap.ts";
import { DASHBOARD_WORKER_ENV, type ResolvedDashboard } from "./options.ts";
import { DASHBOARD_CSS, DASHBOARD_JS, dashboardHtml } from "./page.ts";
import { RequestRecorder } from "./recorder.ts";
import { Records, type SpanRecord } from "./records.ts";
import { RouteStats } from "./route-stats.ts";
import { addSpanSink, loadSpanModules, type SpanRecording, spanRecording } from "./spans.ts";
import { SPAN_CHANNEL } from "./worker-spans.ts";

export interface DashboardInput {
  settings: ResolvedDashboard;
  webSockets: Mount<WebSocketRuntime>;
  hub: () => TopicHub;
}

/** A route another feature added (its middlewares are the app-global ones, its rules its own). */
function builtInView(method: string, pattern: string): RouteView {
  return {
    method,
    pattern,
    handler: "built-in",
    source: null,
    before: [],
    after: [],
    auth: null,
    authRequired: false,
    rateLimit: null,
    offload: false,
    cache: null,
    timeoutMs: null,
    mcp: false,
    kind: "built-in",
  };
}

export async function prepareDashboard(tree: RouterTree, input: DashboardInput): Promise<MountBuild> {
  const { settings } = input;
  const base = settings.path;
  // A route of the app under the dashboard's path would be shadowed without a word: refuse the start.
  const taken = [...tree.routes, ...tree.websockets].find(
    ({ route }) => route.path === base || route.path.startsWith(`${base}/`),
  );
  if (taken !== undefined) {
    throw new Error(
      `the dashboard's path ${base} is taken by the app's route ${taken.route.path}: set the dashboard option's path to another one`,
    );
  }
  const records = new Records();
  const stats = new RouteStats();
  const recorder = new RequestRecorder(records, stats);
  // Loaded now, registered when a server listens: an in-process build (app.request) changes no global.
  const spanModules = await loadSpanModules();
  let recording: SpanRecording = { on: false, reason: "the server is not listening yet" };
  let server: Server<unknown> | null = null;
  let runtime: WebSocketRuntime | undefined;
  let mcpPath: string | null = null;
  let routes: RouteView[] | null = null;
  // Paths other features added (`/mcp`, `/docs`, `/metrics`), found in the table at install.
  const builtIns: RouteView[] = [];
  const api: DashboardApi = {
    records,
    stats,
    routes: () => {
      routes ??= [...describeRoutes(tree), ...builtIns];
      return routes;
    },
    spans: () => recording,
    sockets: {
      connections: () =>
        [...(runtime?.connections ?? [])].map((socket) => ({
          id: socket.id,
          path: socket.url.path,
          topic: socket.topic,
          subscriptions: socket.subscriptions,
        })),
      hubTopics: () => input.hub().topicNames(),
      hubSubscribers: (topic) => input.hub().subscriberCount(topic),
    },
    server: () => server,
    mcpPath: () => mcpPath,
    base,
    workerSpans: process.env[DASHBOARD_WORKER_ENV] === "1",
  };
  const streams = new LiveStreams();
  const own: RouteRecord[] = [];
  const route = (path: string, handler: (request: Request) => unknown) =>
    own.push({
      method: "GET" as HttpMethod,
      path: `${base}${path}`,
      handler: handler as RouteRecord["handler"],
      // Behind the app's authentication when asked (always in production); out of the app's own
      // rate limit under --dev, where the page's live view must not eat the developer's budget.
      options: settings.auth
        ? { authRequired: true, includeInSchema: false }
        : { includeInSchema: false, rateLimit: false },
    });
  const asset = (body: string, type: string) => () =>
    new globalThis.Response(body, { headers: { "content-type": type, "cache-control": "no-store" } });
  route("", asset(dashboardHtml(base), "text/html; charset=utf-8"));
  route("/dashboard.js", asset(DASHBOARD_JS, "text/javascript; charset=utf-8"));
  route("/dashboard.css", asset(DASHBOARD_CSS, "text/css; charset=utf-8"));
  route("/api/info", () => infoOf(api));
  route("/api/routes", () => api.routes());
  route("/api/requests", (request) => listRequests(api, request));
  route("/api/requests/:id", (request) => requestDetail(api, request.pathParams.id as string));
  route("/api/stats", (request) => statsOf(api, request));
  route("/api/sockets", () => socketsOf(api));
  route("/api/events", () => streams.open(records));

  return {
    routes: own,
    install(context) {
      runtime = context.mounted(input.webSockets);
      mcpPath = context.table.has("/mcp") ? "/mcp" : null;
      const own = new Set(tree.routes.map(({ route }) => `${route.method} ${route.path}`));
      for (const { route } of tree.websockets) own.add(`GET ${route.path}`);
      for (const [pattern, methods] of context.table) {
        if (pattern === base || pattern.startsWith(`${base}/`)) continue;
        for (const method of methods.keys())
          if (!own.has(`${method} ${pattern}`)) builtIns.push(builtInView(method, pattern));
      }
      // Every request must reach JavaScript to be listed: Bun would answer a const route by itself.
      context.statics.clear();
      for (const [pattern, methods] of context.table) {
        if (pattern === base || pattern.startsWith(`${base}/`)) continue;
        for (const [method, dispatcher] of methods)
          methods.set(method, recorder.wrap(dispatcher, method, pattern));
      }
      // Logs and spans are tapped only while a server runs (an in-process build never stops).
      let untap = () => {};
      let unsink = () => {};
      let channel: BroadcastChannel | null = null;
      return {
        listening: (listening) => {
          server = listening;
          untap = tapLogs(records, () => recorder.current.getStore());
          recording = spanRecording(spanModules);
          if (!recording.on) return;
          unsink = addSpanSink({
            started: (traceId) => recorder.traceStarted(traceId),
            ended: (span) => records.span(span),
          });
          // Spans of offloaded handlers, sent by this process's handler Workers (src/dashboard/worker-spans.ts).
          if (process.env[DASHBOARD_WORKER_ENV] === "1") {
            channel = new BroadcastChannel(SPAN_CHANNEL);
            (channel as unknown as { unref?: () => void }).unref?.();
            channel.onmessage = (event: MessageEvent<SpanRecord>) => records.span(event.data);
          }
        },
        stopping: () => {
          streams.closeAll();
          untap();
          unsink();
          channel?.close();
        },
      };
    },
  };
}
