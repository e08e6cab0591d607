/**
 * The dashboard's JSON API and live stream on the showcase run as `webfw examples/showcase.ts --dev`
 * (docs/dashboard.md): a request made with curl is listed within a second with its trace and its
 * log lines, MCP tool calls show their spans, routes show what runs around them, bad queries get 400.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { waitFor } from "../cli/helpers.ts";
import { type DevServer, startDev } from "./helpers.ts";

type Json = Record<string, unknown>;
let dev: DevServer;
const api = async (path: string) =>
  (await fetch(`${dev.url}/_webfw/api/${path}`)).json() as Promise<Json & Json[]>;

beforeAll(async () => {
  dev = await startDev("examples/showcase.ts");
}, 30_000);
afterAll(async () => {
  await dev?.stop();
});

describe("the dashboard of `webfw examples/showcase.ts --dev`", () => {
  test("serves the page, its script and its styles from the app (no CDN)", async () => {
    const page = await fetch(`${dev.url}/_webfw`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await page.text();
    expect(html).toContain('<script src="/_webfw/dashboard.js"></script>');
    expect(html).not.toMatch(/https?:\/\//);
    const script = await fetch(`${dev.url}/_webfw/dashboard.js`);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await script.text()).toContain("api/events");
    expect((await fetch(`${dev.url}/_webfw/dashboard.css`)).status).toBe(200);
  });

  test("a curl request is listed within a second, with its trace and its log lines", async () => {
    const id = `curl-${Date.now()}`;
    const curl = Bun.spawnSync(["curl", "-s", "-H", `x-request-id: ${id}`, `${dev.url}/hello/ada`]);
    expect(curl.stdout.toString()).toBe("Hello, ada!");
    const started = performance.now();
    const listed = await waitFor(
      async () => ((await api("requests?limit=50")) as unknown as Json[]).find((r) => r.id === id),
      1000,
      "the curl request in the list",
    );
    expect(performance.now() - started).toBeLessThan(1000);
    expect(listed).toMatchObject({ method: "GET", path: "/hello/ada", route: "/hello/:name", status: 200 });
    const detail = await api(`requests/${id}`);
    expect(typeof detail.traceId).toBe("string");
    const spans = detail.spans as Json[];
    expect(spans.map((span) => span.name)).toContain("GET /hello/:name");
    expect(spans.every((span) => span.traceId === detail.traceId && span.thread === "main")).toBe(true);
    const logs = detail.logs as { line: string }[];
    expect(
      logs.some(
        (entry) => entry.line.includes(`request_id=${id}`) && entry.line.includes("GET /hello/ada 200"),
      ),
    ).toBe(true);
  });

  test("the live stream sends each new request", async () => {
    const abort = new AbortController();
    const stream = await fetch(`${dev.url}/_webfw/api/events`, { signal: abort.signal });
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // ": connected"
    const id = `live-${Date.now()}`;
    await fetch(`${dev.url}/add?a=2&b=3`, { headers: { "x-request-id": id } });
    let text = "";
    while (!text.includes(id)) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain("event: request");
    abort.abort();
  });

  test("an MCP tool call through /mcp has its own span in the trace, and reaches the app", async () => {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const init = await fetch(`${dev.url}/mcp`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
    expect(init.status).toBe(200);
    const session = init.headers.get("mcp-session-id");
    const sessionHeaders: Record<string, string> = session
      ? { ...headers, "mcp-session-id": session }
      : headers;
    await fetch(`${dev.url}/mcp`, {
      method: "POST",
      headers: sessionHeaders,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    const id = `mcp-${Date.now()}`;
    const call = await fetch(`${dev.url}/mcp`, {
      method: "POST",
      headers: { ...sessionHeaders, "x-request-id": id },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "add_todo", arguments: { title: "from MCP" } },
      }),
    });
    expect(await call.text()).toContain("from MCP");
    const todos = (await (await fetch(`${dev.url}/todos`)).json()) as { title: string }[];
    expect(todos.map((todo) => todo.title)).toContain("from MCP");
    const detail = await waitFor(
      async () => {
        const found = await fetch(`${dev.url}/_webfw/api/requests/${id}`);
        return found.status === 200 ? ((await found.json()) as Json) : undefined;
      },
      1000,
      "the MCP request",
    );
    const names = (detail.spans as Json[]).map((span) => span.name);
    expect(names).toContain("POST /mcp");
    expect(names.some((name) => String(name).includes("add_todo"))).toBe(true);
  });

  test("routes show what runs around each handler, with the file and line it was registered at", async () => {
    const routes = (await api("routes")) as unknown as Json[];
    const me = routes.find((route) => route.pattern === "/me") as Json;
    expect(me).toMatchObject({ method: "GET", authRequired: true, auth: "DemoAuth", kind: "http" });
    expect(String(me.source)).toMatch(/examples\/showcase\.ts:\d+$/);
    expect((me.before as string[]).length).toBe(1);
    expect((me.after as string[]).length).toBe(1);
    expect(routes.find((route) => route.pattern === "/health")?.cache).toBe("const (computed once)");
    expect(routes.find((route) => route.pattern === "/live")?.kind).toBe("websocket");
    // What other features added: the MCP endpoint, the OpenAPI document.
    expect(routes.find((route) => route.pattern === "/mcp" && route.method === "POST")?.kind).toBe(
      "built-in",
    );
    expect(routes.some((route) => String(route.pattern).startsWith("/_webfw"))).toBe(false);
  });

  test("per-route charts count requests, latency and errors per second", async () => {
    for (let i = 0; i < 3; i++) await fetch(`${dev.url}/add?a=${i}&b=1`);
    const stats = await api("stats?seconds=60");
    const points = stats["GET /add"] as unknown as { count: number; p95: number }[];
    expect(points).toHaveLength(60);
    expect(points.reduce((sum, point) => sum + point.count, 0)).toBeGreaterThanOrEqual(3);
    expect(points.some((point) => point.p95 > 0)).toBe(true);
  });

  test("WebSocket connections and topics with their subscriber counts", async () => {
    const ws = new WebSocket(`${dev.url.replace("http", "ws")}/live`);
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = reject;
    });
    try {
      const sockets = await waitFor(
        async () => {
          const value = await api("sockets");
          return (value.topics as Json[]).some((topic) => topic.topic === "todos") ? value : undefined;
        },
        2000,
        "the todos topic",
      );
      expect((sockets.connections as Json[]).some((c) => c.path === "/live")).toBe(true);
      const todos = (sockets.topics as Json[]).find((topic) => topic.topic === "todos") as Json;
      expect(todos.subscribers).toBeGreaterThanOrEqual(1);
    } finally {
      ws.close();
    }
  });

  test("bad queries get a clear 400; an unknown request id a 404", async () => {
    for (const query of [
      "requests?limit=0",
      "requests?limit=abc",
      "requests?limit=501",
      "stats?seconds=0",
      "stats?seconds=x",
    ]) {
      const response = await fetch(`${dev.url}/_webfw/api/${query}`);
      expect(response.status).toBe(400);
    }
    const missing = await fetch(`${dev.url}/_webfw/api/requests/no-such-id`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("no recent request");
  });

  test("the dashboard's own requests are not listed", async () => {
    const list = (await api("requests?limit=500")) as unknown as Json[];
    expect(list.some((request) => String(request.path).startsWith("/_webfw"))).toBe(false);
  });
});
