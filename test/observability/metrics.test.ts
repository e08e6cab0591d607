/**
 * `GET /metrics`: the series docs/observability.md lists, in Prometheus text format,
 * through the in-process client and a real server; under `--processes 2`
 * one scrape adds up every process's figures. (A real Prometheus scrapes it
 * in prometheus.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Webfw } from "../../src/index.ts";
import { launchProgram, type Program } from "../faults/spawn.ts";

const APP = join(import.meta.dir, "fixtures/metrics-app.ts");

/** Parses the text exposition into `name{labels}` → value (labels sorted, as written). */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{.*\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    out.set(`${match[1]}${match[2] ?? ""}`, Number(match[3]));
  }
  return out;
}

const count = (s: Map<string, number>, method: string, route: string, status: number) =>
  s.get(`http_server_request_duration_seconds_count{method="${method}",route="${route}",status="${status}"}`);

describe("metrics option, in process", () => {
  test("off by default: no /metrics route", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/", () => "x");
    expect((await app.request("/metrics")).status).toBe(404);
  });

  test("the request histogram by method, route and status; the gauges; help and type lines", async () => {
    const app = new Webfw(import.meta.path, { metrics: true });
    app.get("/users/:id", () => "u");
    app.get("/boom", () => {
      throw new Error("x");
    });
    for (let i = 0; i < 5; i++) expect((await app.request(`/users/${i}`)).status).toBe(200);
    expect((await app.request("/boom")).status).toBe(500);
    expect((await app.request("/nowhere")).status).toBe(404);
    expect((await app.request("/users/1", { method: "HEAD" })).status).toBe(200);
    const response = await app.request("/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const text = await response.text();
    expect(text).toContain("# TYPE http_server_request_duration_seconds histogram");
    expect(text).toContain("# HELP http_server_request_duration_seconds Duration of HTTP server requests");
    const s = samples(text);
    expect(count(s, "GET", "/users/:id", 200)).toBe(5);
    expect(count(s, "HEAD", "/users/:id", 200)).toBe(1);
    expect(count(s, "GET", "/boom", 500)).toBe(1);
    // No route matched: the route label is empty (Prometheus treats it as absent).
    expect(count(s, "GET", "", 404)).toBe(1);
    expect(
      s.get(
        'http_server_request_duration_seconds_bucket{le="+Inf",method="GET",route="/users/:id",status="200"}',
      ),
    ).toBe(5);
    expect(
      s.get(
        'http_server_request_duration_seconds_bucket{le="0.005",method="GET",route="/users/:id",status="200"}',
      ),
    ).toBeLessThanOrEqual(5);
    // The scrape itself is in flight while it is answered.
    expect(s.get("http_server_active_requests")).toBe(1);
    expect(s.get("webfw_websocket_connections")).toBe(0);
    expect(s.get("webfw_worker_pool_workers")).toBe(0);
    expect(s.get("webfw_metrics_processes")).toBe(1);
    expect(s.get("process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(s.has("process_cpu_seconds_total")).toBe(true);
  });

  test("unknown methods share one label value (no cardinality from garbage methods)", async () => {
    const app = new Webfw(import.meta.path, { metrics: true });
    app.get("/x", () => "x");
    await app.request("/x", { method: "PROPFIND" });
    await app.request("/x", { method: "PURGE" });
    const s = samples(await (await app.request("/metrics")).text());
    // The 405 names the pattern the path matched (as a span's http.route does).
    expect(count(s, "_OTHER", "/x", 405)).toBe(2);
    expect(count(s, "_OTHER", "", 405)).toBeUndefined();
    expect([...s.keys()].some((key) => key.includes("PROPFIND") || key.includes("PURGE"))).toBe(false);
  });

  test("options: path, buckets, defaultMetrics: false; an app route on the path wins", async () => {
    const app = new Webfw(import.meta.path, {
      metrics: { path: "/internal/prom", buckets: [0.1, 1], defaultMetrics: false },
    });
    app.get("/a", () => "a");
    await app.request("/a");
    const text = await (await app.request("/internal/prom")).text();
    expect(text).toContain(
      'http_server_request_duration_seconds_bucket{le="0.1",method="GET",route="/a",status="200"} 1',
    );
    expect(text).not.toContain('le="0.005"');
    expect(text).not.toContain("process_cpu");
    expect((await app.request("/metrics")).status).toBe(404);

    const own = new Webfw(import.meta.path, { metrics: true });
    own.get("/metrics", () => "mine");
    expect(await (await own.request("/metrics")).text()).toBe("mine");
  });

  test("bad options fail at construction", () => {
    expect(() => new Webfw(import.meta.path, { metrics: { path: "metrics" } })).toThrow(/metrics.path/);
    expect(() => new Webfw(import.meta.path, { metrics: { path: "/m?x=1" } })).toThrow(/metrics.path/);
    expect(() => new Webfw(import.meta.path, { metrics: { buckets: [1, 0.5] } })).toThrow(/metrics.buckets/);
    expect(() => new Webfw(import.meta.path, { metrics: { buckets: [] } })).toThrow(/metrics.buckets/);
  });
});

describe("--metrics on a real server with --workers 2 and a WebSocket route", () => {
  let program: Program;
  beforeAll(async () => {
    program = await launchProgram(APP, ["--metrics", "--workers", "2"]);
  });
  afterAll(async () => {
    await program?.stop();
  });

  const scrape = async () => samples(await (await fetch(`${program.url}/metrics`)).text());

  test("counts per route and status; pool and WebSocket gauges read the running server", async () => {
    for (let i = 0; i < 7; i++) expect((await fetch(`${program.url}/items/${i}`)).status).toBe(200);
    expect((await fetch(`${program.url}/items`, { method: "POST" })).status).toBe(201);
    expect((await fetch(`${program.url}/fail`)).status).toBe(500);
    let s = await scrape();
    expect(count(s, "GET", "/items/:id", 200)).toBe(7);
    expect(count(s, "POST", "/items", 201)).toBe(1);
    expect(count(s, "GET", "/fail", 500)).toBe(1);
    expect(s.get("webfw_worker_pool_workers")).toBe(2);

    // A const route is counted too (with metrics on Bun no longer answers it without JavaScript).
    for (let i = 0; i < 3; i++)
      expect(await (await fetch(`${program.url}/version`)).json()).toEqual({ version: "1.2.3" });
    expect(count(await scrape(), "GET", "/version", 200)).toBe(3);

    // Two offloaded calls keep both Workers busy; a third waits in the queue.
    const calls = [0, 1, 2].map(() => fetch(`${program.url}/work`));
    await Bun.sleep(120);
    s = await scrape();
    expect(s.get("webfw_worker_pool_busy_workers")).toBe(2);
    expect(s.get("webfw_worker_pool_queued_calls")).toBe(1);
    expect(s.get("http_server_active_requests")).toBe(4);
    await Promise.all(calls);

    const socket = new WebSocket(`${program.url.replace("http", "ws")}/ws`);
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = reject;
    });
    s = await scrape();
    expect(s.get("webfw_websocket_connections")).toBe(1);
    // The upgrade is a request too, with status 101.
    expect(count(s, "GET", "/ws", 101)).toBe(1);
    socket.close();
    await Bun.sleep(100);
    expect((await scrape()).get("webfw_websocket_connections")).toBe(0);
  });
});

describe("--metrics with --processes 2: one scrape, the whole server", () => {
  let program: Program;
  beforeAll(async () => {
    program = await launchProgram(APP, ["--metrics", "--processes", "2"], { listening: 2 });
  });
  afterAll(async () => {
    await program?.stop();
  });

  test("every scrape, whichever process answers it, adds up both processes' requests", async () => {
    const pids = new Map<number, number>();
    const calls = 30;
    for (let i = 0; i < calls; i++) {
      const response = await fetch(`${program.url}/items/${i}`, {
        headers: { connection: "close" },
        keepalive: false,
      });
      const { pid } = (await response.json()) as { pid: number };
      pids.set(pid, (pids.get(pid) ?? 0) + 1);
    }
    // Both processes served some of them (fresh connections, reusePort).
    expect(pids.size).toBe(2);
    for (let scrapeNo = 0; scrapeNo < 6; scrapeNo++) {
      const response = await fetch(`${program.url}/metrics`, {
        headers: { connection: "close" },
        keepalive: false,
      });
      expect(response.status).toBe(200);
      const s = samples(await response.text());
      expect(count(s, "GET", "/items/:id", 200)).toBe(calls);
      expect(s.get("webfw_metrics_processes")).toBe(2);
      expect(s.get("process_resident_memory_bytes")).toBeGreaterThan(0);
    }
  });
});
