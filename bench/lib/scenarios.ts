/**
 * The scenarios of docs/performance.md and the server variants each one runs. A server
 * process serves exactly one scenario (`BENCH_SCENARIO`), so a global
 * middleware or the worker pool never leaks into another measurement.
 */
import { HELLO, POWERED_BY } from "./ready.ts";

export type ScenarioKind = "http" | "cpu" | "ws" | "rss" | "startup";

export interface Variant {
  id: string;
  label: string;
  /** File in bench/servers/. */
  server: "raw" | "webfw" | "elysia" | "hono" | "webfw-before";
  env: Record<string, string>;
}

export interface Scenario {
  name: string;
  title: string;
  kind: ScenarioKind;
  /** Request path for wrk (http/rss/cpu load) or the WebSocket path. */
  path: string;
  /** wrk Lua script in bench/lua/, when the request is not a plain GET. */
  script?: string;
  /** The variant the ratios are computed against. */
  baseline: string;
  /** Cores the servers may use (taskset list); default core 0 only, the load generator having core 1. */
  serverCpus?: string;
  variants: Variant[];
  /** Checks one response before measuring: a variant that answers differently is not measured. */
  check?: (response: Response) => Promise<string | null>;
  init?: RequestInit;
}

export const ENGINES = ["bun", "ffi", "js"] as const;

const raw: Variant = { id: "raw", label: "raw Bun.serve", server: "raw", env: {} };
const webfwEngines: Variant[] = ENGINES.map((engine) => ({
  id: `webfw-${engine}`,
  label: `webfw (router: ${engine})`,
  server: "webfw",
  env: { BENCH_ENGINE: engine },
}));
const elysia: Variant = { id: "elysia", label: "Elysia", server: "elysia", env: {} };
const hono: Variant = { id: "hono", label: "Hono", server: "hono", env: {} };
/**
 * Elysia's echo doing what webfw's does before its handler: the cross-site check, the body's
 * in-flight budget and its read deadline with a 408 (bench/servers/elysia.ts; docs/performance.md,
 * "Issue 32, seventh pass: a peer doing the same work").
 */
const elysiaSameWork: Variant = {
  id: "elysia-same-work",
  label: "Elysia doing webfw's POST work (cross-site check, body budget, read deadline)",
  server: "elysia",
  env: { BENCH_JSON_SAME_WORK: "1" },
};
const everyone = [raw, ...webfwEngines, elysia, hono];
/** The default engine only, where the router plays no part (start-up, the production stack). */
const webfwDefault = webfwEngines[0] as Variant;

/** The client request id of the production-stack scenario (bench/lua/request-id.lua sends the same). */
export const REQUEST_ID = "bench-request-0001";

const JSON_BODY = '{"id":42,"name":"bench","tags":["a","b","c"],"nested":{"ok":true,"ratio":0.5}}';

function expectBody(expected: string, headers: Record<string, string> = {}) {
  return async (response: Response): Promise<string | null> => {
    const body = await response.text();
    if (response.status !== 200) return `status ${response.status}`;
    if (body !== expected) return `body ${JSON.stringify(body.slice(0, 80))}`;
    for (const [name, value] of Object.entries(headers)) {
      if (response.headers.get(name) !== value) return `header ${name}: ${response.headers.get(name)}`;
    }
    return null;
  };
}

export const SCENARIOS: Scenario[] = [
  {
    name: "hello",
    title: "GET / returning a string",
    kind: "http",
    path: "/",
    baseline: "raw",
    variants: everyone,
    check: expectBody(HELLO),
  },
  {
    name: "const",
    title: "GET / const route (raw: a Bun static Response route)",
    kind: "http",
    path: "/",
    baseline: "raw",
    variants: [{ ...raw, label: "raw Bun.serve static Response" }, ...webfwEngines, elysia, hono],
    check: expectBody(HELLO),
  },
  {
    name: "params",
    title: "GET /id/:id?name=x, response header x-powered-by",
    kind: "http",
    path: "/id/42?name=bun",
    baseline: "raw",
    variants: everyone,
    check: expectBody("42 bun", { "x-powered-by": POWERED_BY }),
  },
  {
    name: "json",
    title: "POST /json echo",
    kind: "http",
    path: "/json",
    script: "post-json.lua",
    baseline: "raw",
    variants: [...everyone, elysiaSameWork],
    init: { method: "POST", body: JSON_BODY, headers: { "content-type": "application/json" } },
    check: async (response) => {
      const text = await response.text();
      if (response.status !== 200) return `status ${response.status}`;
      return JSON.stringify(JSON.parse(text)) === JSON_BODY ? null : `body ${text.slice(0, 80)}`;
    },
  },
  {
    name: "middleware",
    title: "GET / with one global before + after middleware",
    kind: "http",
    path: "/",
    baseline: "raw",
    variants: everyone,
    check: expectBody(HELLO, { "x-after": "1" }),
  },
  {
    name: "cpu",
    title: "CPU-bound ~2 ms sync route; /health p99 under that load",
    kind: "cpu",
    path: "/cpu",
    baseline: "webfw-inline",
    // The Workers need the second core; wrk needs little of it at ~1000 req/s.
    serverCpus: "0,1",
    variants: [
      { ...raw, label: "raw Bun.serve (inline)" },
      {
        id: "webfw-inline",
        label: "webfw inline (workers: 1)",
        server: "webfw",
        env: { BENCH_WORKERS: "1" },
      },
      { id: "webfw-workers2", label: "webfw workers: 2", server: "webfw", env: { BENCH_WORKERS: "2" } },
      // What `--fast` picks on 2 cores (one process per core, inline handlers), for the trade-off in docs/performance.md.
      {
        id: "webfw-processes2",
        label: "webfw --processes 2 (inline)",
        server: "webfw",
        env: { BENCH_WORKERS: "1", BENCH_ARGV: "--processes 2" },
      },
    ],
    check: async (response) => {
      const text = await response.text();
      return response.status === 200 && /^-?\d+$/.test(text) ? null : `status ${response.status} ${text}`;
    },
  },
  {
    // What `--fast` should pick on 2 cores for a trivial route. The servers may use both cores,
    // so they share core 1 with wrk: the absolute numbers are pessimistic, the comparison holds.
    name: "fast",
    title: "GET / returning a string, servers on both cores (the `--fast` choice)",
    kind: "http",
    path: "/",
    baseline: "raw",
    serverCpus: "0,1",
    variants: [
      { ...raw, label: "raw Bun.serve (1 process)" },
      { id: "webfw-1", label: "webfw (1 process, inline)", server: "webfw", env: { BENCH_WORKERS: "1" } },
      {
        id: "webfw-processes2",
        label: "webfw --processes 2",
        server: "webfw",
        env: { BENCH_WORKERS: "1", BENCH_ARGV: "--processes 2" },
      },
      { id: "webfw-workers2", label: "webfw workers: 2", server: "webfw", env: { BENCH_WORKERS: "2" } },
    ],
    check: expectBody(HELLO),
  },
  {
    name: "ws",
    title: "WebSocket echo (messages/s)",
    kind: "ws",
    path: "/ws",
    baseline: "raw",
    variants: [
      { ...raw, label: "raw Bun WebSocket" },
      { id: "webfw", label: "webfw app.websocket", server: "webfw", env: { BENCH_ENGINE: "bun" } },
      elysia,
    ],
  },
  {
    // docs/performance.md / issue #19: what tracing and metrics cost on GET /, and that off costs nothing.
    // `webfw-before` is the same app on the source tree of the commit before observability landed
    // (bench/servers/webfw-before.ts; the runner extracts it with `git archive`).
    name: "observability",
    title: "GET / with observability off, tracing through the no-op API, metrics on, the SDK exporting",
    kind: "http",
    path: "/",
    baseline: "webfw-before",
    variants: [
      raw,
      { id: "webfw-before", label: "webfw before observability", server: "webfw-before", env: {} },
      { id: "webfw-off", label: "webfw, everything off", server: "webfw", env: { BENCH_ENGINE: "bun" } },
      {
        id: "webfw-tracing-noop",
        label: "webfw tracing: true, no SDK (no-op API)",
        server: "webfw",
        env: { BENCH_ENGINE: "bun", BENCH_TRACING: "1" },
      },
      {
        id: "webfw-metrics",
        label: "webfw metrics: true",
        server: "webfw",
        env: { BENCH_ENGINE: "bun", BENCH_METRICS: "1" },
      },
      {
        id: "webfw-otel",
        label: "webfw --otel, SDK exporting (OTLP/HTTP protobuf, every request sampled)",
        server: "webfw",
        env: { BENCH_ENGINE: "bun", BENCH_ARGV: "--otel", OTEL_BSP_SCHEDULE_DELAY: "1000" },
      },
    ],
    check: expectBody(HELLO),
  },
  {
    // Issue #18 (docs/performance.md): the cost of production features on GET /. The Redis variant starts its own
    // redis-server on a unix socket, pinned with the server (so it takes from the server's core).
    name: "prod",
    title: "GET / with request ids, a rate limit never hit (memory, Redis; fixed and sliding)",
    kind: "http",
    path: "/",
    baseline: "raw",
    variants: [
      raw,
      // The same work written by hand on Bun.serve (bench/servers/raw.ts): what Bun allows.
      {
        id: "raw-ids",
        label: "raw Bun.serve echoing a request id",
        server: "raw",
        env: { BENCH_PROD: "request-id" },
      },
      {
        id: "raw-limit",
        label: "raw Bun.serve counting per IP + RateLimit headers",
        server: "raw",
        env: { BENCH_PROD: "limit-memory" },
      },
      { id: "webfw", label: "webfw (nothing on)", server: "webfw", env: {} },
      { id: "webfw-ids", label: "webfw requestId: true", server: "webfw", env: { BENCH_PROD: "request-id" } },
      {
        id: "webfw-limit",
        label: "webfw rateLimit (memory)",
        server: "webfw",
        env: { BENCH_PROD: "limit-memory" },
      },
      {
        id: "webfw-redis",
        label: "webfw rateLimit (Redis)",
        server: "webfw",
        env: { BENCH_PROD: "limit-redis" },
      },
      {
        id: "webfw-limit-sliding",
        label: "webfw rateLimit (memory, sliding)",
        server: "webfw",
        env: { BENCH_PROD: "limit-sliding" },
      },
      {
        id: "webfw-redis-sliding",
        label: "webfw rateLimit (Redis, sliding)",
        server: "webfw",
        env: { BENCH_PROD: "limit-redis-sliding" },
      },
    ],
    check: expectBody(HELLO),
  },
  {
    // The issue-32 rows (docs/performance.md): a request id echoed, an in-memory rate limit no
    // request reaches, Prometheus metrics on; Hono and Elysia with their most-used npm plugins for
    // the same jobs (bench/package.json), raw Bun.serve doing it by hand.
    name: "stack",
    title: "production stack: request id echoed + in-memory rate limit never hit + Prometheus metrics",
    kind: "http",
    path: "/",
    script: "request-id.lua",
    baseline: "raw",
    variants: [
      { ...raw, label: "raw Bun.serve, by hand (prom-client)" },
      { ...webfwDefault, label: "webfw requestId + rateLimit (memory) + metrics" },
      { ...elysia, label: "Elysia + elysia-rate-limit + elysia-prometheus + id hook" },
      { ...hono, label: "Hono + requestId + hono-rate-limiter + @hono/prometheus" },
    ],
    init: { headers: { "x-request-id": REQUEST_ID } },
    check: async (response) => {
      const problem = await expectBody(HELLO, { "x-request-id": REQUEST_ID })(response);
      if (problem !== null) return problem;
      return [...response.headers.keys()].some((name) => name.startsWith("ratelimit"))
        ? null
        : "no RateLimit header";
    },
  },
  {
    // Start to first answer of the one-route app: the runner's client (bench/clients/first-answer.ts,
    // on the load core) spawns the server on core 0 and asks GET / until the first 200.
    name: "startup",
    title: "start to first answer (spawn → first 200 of GET /), ms",
    kind: "startup",
    path: "/",
    baseline: "raw",
    variants: [raw, { ...webfwDefault, label: "webfw" }, elysia, hono],
    check: expectBody(HELLO),
  },
  {
    name: "rss",
    title: "RSS idle and after N requests of GET /",
    kind: "rss",
    path: "/",
    baseline: "raw",
    variants: everyone,
    check: expectBody(HELLO),
  },
];
