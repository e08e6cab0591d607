/**
 * webfw, one scenario per process: `BENCH_ENGINE` picks the router engine,
 * `BENCH_WORKERS` the handler Workers (the `cpu` scenario). With workers > 1
 * every Worker imports this file again in worker mode, where `start()` does
 * not listen; the routes must therefore be registered the same way there.
 */

import type { RouterEngine } from "../../src/match/types.ts";
import { burn, cpuIterations } from "../lib/cpu-work.ts";
import { announce, HELLO, POWERED_BY, scenarioFromEnv } from "../lib/ready.ts";

// `BENCH_WEBFW=dist`: webfw as users get it, the built package (scripts/build.ts; bench/run.ts sets
// it and builds dist/ first); otherwise the sources, as the repository's tests run them (the gate).
const fromDist = process.env.BENCH_WEBFW === "dist";
type WebfwModule = typeof import("../../src/index.ts");
/** A module of the built package; `BENCH_WEBFW_DIST` names another build (bench/bundled-start.ts). */
function builtModule(name: string): string {
  const dist = process.env.BENCH_WEBFW_DIST ?? new URL("../../dist", import.meta.url).pathname;
  return Bun.pathToFileURL(`${dist}/src/${name}.js`).href;
}
const { Response, Webfw } = (
  fromDist ? await import(builtModule("index")) : await import("../../src/index.ts")
) as WebfwModule;
type Webfw = InstanceType<WebfwModule["Webfw"]>;
const scenario = scenarioFromEnv();
const engine = (process.env.BENCH_ENGINE ?? "bun") as RouterEngine;
const workers = Number(process.env.BENCH_WORKERS ?? "1");
// The observability scenario's switches (bench/lib/scenarios.ts): tracing through the API, metrics,
// and the SDK (`BENCH_ARGV=--otel`) exporting to the runner's OTLP sink.
if (process.env.BENCH_OTLP_SINK && process.env.BENCH_ARGV?.includes("--otel")) {
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = process.env.BENCH_OTLP_SINK;
}
const app = new Webfw(import.meta.path, {
  router: engine,
  tracing: process.env.BENCH_TRACING === "1",
  // `bare`: the request series without prom-client's default process metrics (instructions.sh).
  metrics:
    process.env.BENCH_METRICS === "bare"
      ? { defaultMetrics: false }
      : process.env.BENCH_METRICS === "1" || process.env.BENCH_PROD === "stack" || scenario === "stack",
  // The `prod` scenario's request-id variant (issue #18).
  // `stack` (bench/gate.ts): request ids, a memory limit never hit and metrics together.
  requestId:
    process.env.BENCH_PROD === "request-id" || process.env.BENCH_PROD === "stack" || scenario === "stack",
  // The client-address variants (docs/client-address.md): a trusted proxy, an IP filter no request hits.
  trustProxy: process.env.BENCH_PROD === "trust-proxy" ? ["127.0.0.1"] : undefined,
  ipFilter: process.env.BENCH_PROD === "ip-filter" ? { deny: ["192.0.2.0/24", "2001:db8::/32"] } : undefined,
  // `BENCH_JSON_TIMEOUT=0`: no body read deadline (docs/performance.md, "Issue 32, third pass: POST /json").
  bodyReadTimeoutMs: process.env.BENCH_JSON_TIMEOUT === "0" ? 0 : undefined,
});

switch (scenario) {
  case "prod":
    await productionFeatures(app, process.env.BENCH_PROD ?? "");
    app.get("/", () => HELLO);
    break;
  case "stack":
    // The production stack of bench/lib/scenarios.ts (the options above switch on ids and metrics).
    await productionFeatures(app, "stack");
    app.get("/", () => HELLO);
    break;
  case "hello":
  case "fast":
  case "rss":
  case "startup":
  case "observability":
    app.get("/", () => HELLO);
    break;
  case "const":
    app.get("/", () => HELLO, { const: true });
    break;
  case "params":
    app.get(
      "/id/:id",
      ({ pathParams, queryParams }) =>
        new Response(200, { "x-powered-by": POWERED_BY }, `${pathParams.id} ${queryParams.get("name")}`),
    );
    break;
  case "json": {
    // `BENCH_JSON_CSRF=off`: the same route without the cross-site check of an unsafe method
    // (docs/security.md), the work Elysia's route does not do (docs/performance.md, "Issue 32,
    // second pass").
    const csrf = process.env.BENCH_JSON_CSRF === "off" ? { csrf: false as const } : {};
    // `BENCH_JSON_PROTO`: one part of the echo taken away (bench/lib/json-prototypes.ts).
    // Imported here only: its module loads `node:buffer` and makes a decoder at the top, which would
    // otherwise count in webfw's start-up and idle memory in every scenario (docs/performance.md,
    // "A yardstick that loaded more than its scenario").
    const proto = process.env.BENCH_JSON_PROTO;
    const prototype =
      proto === undefined ? undefined : (await import("../lib/json-prototypes.ts")).JSON_PROTOTYPES[proto];
    if (prototype !== undefined) {
      app.post("/json", prototype.handler, prototype.stream ? { body: "stream", ...csrf } : csrf);
    } else if (process.env.BENCH_JSON_READ === "native") {
      // The prototype of docs/performance.md ("POST /json"): the body left to Bun (`body: "stream"`)
      // and parsed by its native `Request.json()`, the framework's read and parse skipped.
      app.post("/json", (request) => request.raw.json(), { body: "stream", ...csrf });
    } else app.post("/json", (request) => request.json(), csrf);
    break;
  }
  case "middleware":
    // `BENCH_MIDDLEWARE=scoped`: the shape of an outside measurement (a path-scoped before-middleware
    // that returns the request), counted with `bun bench/gate.ts --only middleware --env BENCH_MIDDLEWARE=scoped`.
    if (process.env.BENCH_MIDDLEWARE === "scoped") app.beforeRequest("/", (request) => request);
    else
      app.beforeRequest((request) => {
        if (request.method === "") throw new Error("unreachable");
      });
    app.afterRequest((response) => {
      response.headers.set("x-after", "1");
    });
    app.get("/", () => HELLO);
    break;
  case "cpu": {
    const iterations = cpuIterations();
    // Offloaded: goes to the worker pool when workers > 1 (offload is opt-in).
    app.get("/cpu", () => String(burn(iterations)), { offload: true });
    // Stays on the main thread to answer while the Workers are busy.
    app.get("/health", () => "ok");
    break;
  }
  case "ws":
    app.websocket("/ws", async (ws) => {
      for await (const message of ws) {
        if (typeof message === "string") await ws.sendText(message);
        else await ws.sendBytes(message);
      }
    });
    break;
  default:
    throw new Error(`webfw: unknown scenario ${scenario}`);
}

// No access log: that is what `--fast` (log level WARNING) gives; the log's own cost is measured in docs/performance.md.
const handle = await app.start({
  host: "127.0.0.1",
  port: Number(process.env.BENCH_PORT ?? "0"),
  workers,
  handleSignals: false,
  accessLog: process.env.BENCH_ACCESS_LOG === "1",
  argv: (process.env.BENCH_ARGV ?? "").split(" ").filter(Boolean),
});
// Inside a handler Worker start() does not listen (port 0): nothing to announce.
if (handle.port !== 0) announce(handle.port);

/**
 * The `prod` scenario's variants (issue #18): request ids, or a limit no request reaches, counted in
 * memory or in a redis-server this process starts on a unix socket (and stops when it exits), with
 * fixed windows or the sliding window counter (`limit-sliding`, `limit-redis-sliding`).
 */
async function productionFeatures(target: Webfw, feature: string): Promise<void> {
  // Options of the app (above).
  if (feature === "request-id" || feature === "trust-proxy" || feature === "ip-filter") return;
  // Loaded here, as an app that uses them does: the one-route scenarios (rss, startup) never load them.
  const { MemoryStore, RedisStore } = (
    fromDist
      ? await import(builtModule("entries/rate-limit"))
      : await import("../../src/entries/rate-limit.ts")
  ) as typeof import("../../src/entries/rate-limit.ts");
  if (feature === "limit-memory" || feature === "limit-sliding" || feature === "stack") {
    const algorithm = feature === "limit-sliding" ? "sliding" : "fixed";
    target.rateLimit({ limit: 1_000_000_000, windowMs: 3_600_000, algorithm, store: new MemoryStore() });
  } else if (feature === "limit-redis" || feature === "limit-redis-sliding") {
    const socket = `/tmp/webfw-bench-redis-${process.pid}.sock`;
    const redis = Bun.spawn(
      ["redis-server", "--port", "0", "--unixsocket", socket, "--save", "", "--appendonly", "no"],
      {
        stdout: "ignore",
        stderr: "ignore",
      },
    );
    process.on("exit", () => redis.kill());
    for (let i = 0; i < 100 && !(await Bun.file(socket).exists()); i++) await Bun.sleep(50);
    target.rateLimit({
      limit: 1_000_000_000,
      windowMs: 3_600_000,
      store: new RedisStore({ url: `redis+unix://${socket}` }),
      algorithm: feature === "limit-redis-sliding" ? "sliding" : "fixed",
    });
  } else if (feature !== "") throw new Error(`webfw: unknown BENCH_PROD ${feature}`);
}
