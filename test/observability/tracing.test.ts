/**
 * Tracing end to end: the fixture app runs as a real program with `--otel`,
 * the real OTLP exporter sends its spans to a receiver in this test process,
 * and the test decodes what went over the wire (protobuf, then JSON) and
 * checks names, attributes, statuses and the parent/child links from the
 * client's `traceparent` through the main thread into the worker pool and
 * across `--processes`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { launchProgram, type Program } from "../faults/spawn.ts";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../helpers/otlp-receiver.ts";

const APP = join(import.meta.dir, "fixtures/traced-app.ts");
const SERVER = 2;
const INTERNAL = 1;
const ERROR = 2;

/** A fresh W3C trace context: the client's span the server span must be a child of. */
function clientContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex");
  const spanId = Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString("hex");
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

function otelEnv(receiver: OtlpReceiver, protocol: string): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_BSP_SCHEDULE_DELAY: "100",
    OTEL_SERVICE_NAME: "traced-fixture",
  };
}

/**
 * For the calling `describe`: the fixture launched with `args` before its tests, exporting over
 * `protocol` to a receiver of its own, both stopped after them.
 */
function tracedProgram(
  args: string[],
  protocol: string,
  listening?: number,
): { readonly receiver: OtlpReceiver; readonly app: Program } {
  const traced = {} as { receiver: OtlpReceiver; app: Program };
  beforeAll(async () => {
    traced.receiver = startOtlpReceiver();
    traced.app = await launchProgram(APP, args, { env: otelEnv(traced.receiver, protocol), listening });
  });
  afterAll(async () => {
    await traced.app?.stop();
    traced.receiver?.stop();
  });
  return traced;
}

/** The spans of one trace, once `count` of them arrived. */
async function traceSpans(receiver: OtlpReceiver, traceId: string, count: number): Promise<ReceivedSpan[]> {
  await receiver.waitFor((spans) => spans.filter((s) => s.traceId === traceId).length >= count);
  return receiver.spans.filter((s) => s.traceId === traceId);
}

function only(spans: ReceivedSpan[], predicate: (span: ReceivedSpan) => boolean): ReceivedSpan {
  const found = spans.filter(predicate);
  expect(found).toHaveLength(1);
  return found[0] as ReceivedSpan;
}

describe("tracing with --otel (OTLP/HTTP protobuf, --workers 2)", () => {
  const traced = tracedProgram(["--otel", "--workers", "2"], "http/protobuf");

  const get = (path: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
    fetch(`${traced.app.url}${path}`, { ...init, headers });

  test("the server span continues the client's traceparent and tracestate, with HTTP attributes", async () => {
    const client = clientContext();
    const response = await get("/users/7?full=1", {
      traceparent: client.traceparent,
      tracestate: "vendor=abc",
      "user-agent": "otel-test/1",
      "x-request-id": "req-users-7",
    });
    expect(response.status).toBe(200);
    const [span] = await traceSpans(traced.receiver, client.traceId, 1);
    expect(span?.name).toBe("GET /users/:id");
    expect(span?.kind).toBe(SERVER);
    expect(span?.parentSpanId).toBe(client.spanId);
    expect(span?.traceState).toBe("vendor=abc");
    expect(span?.statusCode).toBe(0);
    expect(span?.attributes).toMatchObject({
      "http.request.method": "GET",
      "http.route": "/users/:id",
      "url.scheme": "http",
      "url.path": "/users/7",
      "url.query": "full=1",
      "server.address": "127.0.0.1",
      "server.port": traced.app.port,
      "client.address": "127.0.0.1",
      "user_agent.original": "otel-test/1",
      "http.response.status_code": 200,
      // The client's sane X-Request-Id is the request's id.
      "webfw.request.id": "req-users-7",
    });
    expect(span?.scope).toBe("webfw");
    expect(span?.resource["service.name"]).toBe("traced-fixture");
    expect(span?.resource["process.runtime.name"]).toBe("bun");
    expect(traced.receiver.contentTypes).toContain("application/x-protobuf");
  });

  test("without a traceparent the server span is a root span of a new trace", async () => {
    const before = traced.receiver.spans.length;
    expect((await get("/hello")).status).toBe(200);
    await traced.receiver.waitFor((spans) => spans.slice(before).some((s) => s.name === "GET /hello"));
    const span = traced.receiver.spans.slice(before).find((s) => s.name === "GET /hello") as ReceivedSpan;
    expect(span.parentSpanId).toBe("");
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.traceId).not.toBe("0".repeat(32));
  });

  test("a malformed traceparent is ignored: a new root span, not a 400", async () => {
    const before = traced.receiver.spans.length;
    const response = await get("/hello", { traceparent: "00-not-a-trace-01" });
    expect(response.status).toBe(200);
    await traced.receiver.waitFor((spans) => spans.slice(before).some((s) => s.name === "GET /hello"));
    const span = traced.receiver.spans.slice(before).find((s) => s.name === "GET /hello") as ReceivedSpan;
    expect(span.parentSpanId).toBe("");
  });

  test("404: a span named by the method only, no http.route, status not an error", async () => {
    const client = clientContext();
    expect((await get("/no/such/path", { traceparent: client.traceparent })).status).toBe(404);
    const [span] = await traceSpans(traced.receiver, client.traceId, 1);
    expect(span?.name).toBe("GET");
    expect(span?.attributes["http.route"]).toBeUndefined();
    expect(span?.attributes["http.response.status_code"]).toBe(404);
    expect(span?.statusCode).toBe(0);
  });

  test("a const route gets its server span too (with tracing on it is not a static answer)", async () => {
    const client = clientContext();
    const response = await get("/version", { traceparent: client.traceparent });
    expect(await response.json()).toEqual({ version: "1.2.3" });
    const [span] = await traceSpans(traced.receiver, client.traceId, 1);
    expect(span?.name).toBe("GET /version");
    expect(span?.parentSpanId).toBe(client.spanId);
  });

  test("405: the span names the route pattern the path matched (http.route), with the client's method", async () => {
    const client = clientContext();
    const response = await get("/users/7", { traceparent: client.traceparent }, { method: "DELETE" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toContain("GET");
    const [span] = await traceSpans(traced.receiver, client.traceId, 1);
    expect(span?.name).toBe("DELETE /users/:id");
    expect(span?.attributes["http.route"]).toBe("/users/:id");
    expect(span?.attributes["http.request.method"]).toBe("DELETE");
    expect(span?.attributes["http.response.status_code"]).toBe(405);
  });

  test("a thrown error: 500, span status error, error.type and the exception event", async () => {
    const client = clientContext();
    const response = await get("/boom", { traceparent: client.traceparent });
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain("the handler broke");
    const [span] = await traceSpans(traced.receiver, client.traceId, 1);
    expect(span?.statusCode).toBe(ERROR);
    expect(span?.attributes["error.type"]).toBe("TypeError");
    expect(span?.attributes["http.response.status_code"]).toBe(500);
    const exception = span?.events.find((e) => e.name === "exception");
    expect(exception?.attributes["exception.type"]).toBe("TypeError");
    expect(exception?.attributes["exception.message"]).toBe("the handler broke");
  });

  test("an HttpError 4xx is an answer: no exception event, status unset", async () => {
    const client = clientContext();
    expect((await get("/teapot", { traceparent: client.traceparent })).status).toBe(418);
    const [span] = await traceSpans(traced.receiver, client.traceId, 1);
    expect(span?.attributes["http.response.status_code"]).toBe(418);
    expect(span?.statusCode).toBe(0);
    expect(span?.events).toEqual([]);
  });

  test("413: the span ends with the status of a body over the limit", async () => {
    const client = clientContext();
    const response = await fetch(`${traced.app.url}/upload`, {
      method: "POST",
      body: "x".repeat(5000),
      headers: { traceparent: client.traceparent },
    });
    expect(response.status).toBe(413);
    const [span] = await traceSpans(traced.receiver, client.traceId, 1);
    expect(span?.name).toBe("POST /upload");
    expect(span?.attributes["http.response.status_code"]).toBe(413);
  });

  test("a request timeout: 503, error.type RequestTimeoutError", async () => {
    const client = clientContext();
    expect((await get("/slow", { traceparent: client.traceparent })).status).toBe(503);
    const [span] = await traceSpans(traced.receiver, client.traceId, 1);
    expect(span?.attributes["http.response.status_code"]).toBe(503);
    expect(span?.attributes["error.type"]).toBe("RequestTimeoutError");
    expect(span?.statusCode).toBe(ERROR);
  });

  test("a client that goes away: the span ends then, as client_aborted, without a status code", async () => {
    const client = clientContext();
    const controller = new AbortController();
    const pending = get("/hang", { traceparent: client.traceparent }, { signal: controller.signal }).catch(
      (error: unknown) => error,
    );
    await Bun.sleep(300);
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    const [span] = await traceSpans(traced.receiver, client.traceId, 1);
    expect(span?.name).toBe("GET /hang");
    expect(span?.attributes["error.type"]).toBe("client_aborted");
    expect(span?.attributes["http.response.status_code"]).toBeUndefined();
    expect(span?.statusCode).toBe(ERROR);
  });

  test("an offloaded handler: a child span in the Worker, and the handler's own span under it", async () => {
    const client = clientContext();
    const response = await get("/cpu/20000", { traceparent: client.traceparent });
    expect(response.status).toBe(200);
    const spans = await traceSpans(traced.receiver, client.traceId, 3);
    const server = only(spans, (s) => s.name === "GET /cpu/:n");
    const worker = only(spans, (s) => s.name === "handler GET /cpu/:n");
    const compute = only(spans, (s) => s.name === "compute");
    expect(server.parentSpanId).toBe(client.spanId);
    expect(worker.parentSpanId).toBe(server.spanId);
    expect(worker.kind).toBe(INTERNAL);
    expect(worker.attributes["webfw.offload"]).toBe(true);
    // A Worker thread, not the main thread (0).
    expect(worker.attributes["thread.id"]).toBeGreaterThan(0);
    expect(worker.attributes["http.response.status_code"]).toBe(200);
    expect(compute.parentSpanId).toBe(worker.spanId);
    expect(compute.attributes["app.iterations"]).toBe(20000);
    expect(compute.scope).toBe("app");
    // The Worker's span lies within the server span, up to the clocks of two threads (each SDK
    // anchors its times on its own thread's time origin, which Bun reports to the millisecond).
    const slack = 5_000_000n;
    expect(worker.startNs + slack >= server.startNs).toBe(true);
    expect(worker.endNs <= server.endNs + slack).toBe(true);
  });

  test("spans a handler starts through @opentelemetry/api nest under the server span", async () => {
    const client = clientContext();
    expect((await get("/nested", { traceparent: client.traceparent })).status).toBe(200);
    const spans = await traceSpans(traced.receiver, client.traceId, 3);
    const server = only(spans, (s) => s.name === "GET /nested");
    const load = only(spans, (s) => s.name === "load-user");
    const query = only(spans, (s) => s.name === "query");
    expect(load.parentSpanId).toBe(server.spanId);
    expect(query.parentSpanId).toBe(load.spanId);
  });

  test("a WebSocket: the upgrade's server span, a span per message under it, handler spans in its trace", async () => {
    const client = clientContext();
    const socket = new WebSocket(`${traced.app.url.replace("http", "ws")}/ws/lobby`, {
      headers: { traceparent: client.traceparent },
    } as unknown as string[]);
    const replies: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      socket.onmessage = (event) => {
        replies.push(String(event.data));
        if (replies.length === 3) resolve();
      };
      socket.onerror = () => reject(new Error("websocket error"));
    });
    await new Promise((resolve) => {
      socket.onopen = resolve;
    });
    socket.send("a");
    socket.send("bb");
    socket.send(new Uint8Array([1, 2, 3, 4]));
    await done;
    expect(replies).toEqual(["echo a", "echo bb", "echo 4 bytes"]);
    socket.close();
    const spans = await traceSpans(traced.receiver, client.traceId, 7);
    const upgrade = only(spans, (s) => s.name === "GET /ws/:room");
    expect(upgrade.parentSpanId).toBe(client.spanId);
    expect(upgrade.attributes["http.response.status_code"]).toBe(101);
    const messages = spans.filter((s) => s.name === "WS message /ws/:room");
    expect(messages).toHaveLength(3);
    for (const message of messages) {
      expect(message.parentSpanId).toBe(upgrade.spanId);
      expect(message.kind).toBe(5);
      expect(message.attributes["http.route"]).toBe("/ws/:room");
    }
    expect(
      messages.map((m) => [
        m.attributes["websocket.message.type"],
        m.attributes["messaging.message.body.size"],
      ]),
    ).toEqual([
      ["text", 1],
      ["text", 2],
      ["binary", 4],
    ]);
    const handled = spans.filter((s) => s.name === "handle-message");
    expect(handled).toHaveLength(3);
    for (const span of handled) expect(span.parentSpanId).toBe(upgrade.spanId);
  });

  test("an MCP tool call: a span under the /mcp request's, the tool's own spans under it; isError marks it", async () => {
    const call = async (name: string, args: Record<string, unknown>) => {
      const client = clientContext();
      const response = await fetch(`${traced.app.url}/mcp`, {
        method: "POST",
        headers: {
          traceparent: client.traceparent,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name, arguments: args },
        }),
      });
      expect(response.status).toBe(200);
      return {
        client,
        body: (await response.json()) as { result: { isError: boolean; content: { text: string }[] } },
      };
    };
    const ok = await call("add", { a: 2, b: 40 });
    expect(ok.body.result.content[0]?.text).toBe("42");
    const spans = await traceSpans(traced.receiver, ok.client.traceId, 3);
    const server = only(spans, (s) => s.name === "POST /mcp");
    const tool = only(spans, (s) => s.name === "tools/call add");
    expect(server.parentSpanId).toBe(ok.client.spanId);
    expect(tool.parentSpanId).toBe(server.spanId);
    expect(tool.kind).toBe(INTERNAL);
    expect(tool.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "add",
      "gen_ai.operation.name": "execute_tool",
    });
    expect(tool.statusCode).toBe(0);
    expect(only(spans, (s) => s.name === "sum").parentSpanId).toBe(tool.spanId);

    const failed = await call("broken", {});
    expect(failed.body.result.isError).toBe(true);
    const [, brokenTool] = await traceSpans(traced.receiver, failed.client.traceId, 2).then((found) => [
      only(found, (s) => s.name === "POST /mcp"),
      only(found, (s) => s.name === "tools/call broken"),
    ]);
    expect(brokenTool?.statusCode).toBe(ERROR);
    expect(brokenTool?.attributes["error.type"]).toBe("tool_error");
  });

  test("a route called as an MCP tool: its server span nests under the tools/call span, in the caller's trace", async () => {
    const client = clientContext();
    const response = await fetch(`${traced.app.url}/mcp`, {
      method: "POST",
      headers: {
        traceparent: client.traceparent,
        "content-type": "application/json",
        accept: "application/json",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 8,
        method: "tools/call",
        params: { name: "get_users_by_id", arguments: { id: "7" } },
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { isError: boolean; structuredContent: unknown } };
    expect(body.result.isError).toBe(false);
    expect(body.result.structuredContent).toEqual({ id: "7" });
    const spans = await traceSpans(traced.receiver, client.traceId, 3);
    const mcp = only(spans, (s) => s.name === "POST /mcp");
    const tool = only(spans, (s) => s.name === "tools/call get_users_by_id");
    const route = only(spans, (s) => s.name === "GET /users/:id");
    expect(mcp.parentSpanId).toBe(client.spanId);
    expect(tool.parentSpanId).toBe(mcp.spanId);
    expect(route.parentSpanId).toBe(tool.spanId);
    expect(route.kind).toBe(SERVER);
    expect(route.attributes["http.route"]).toBe("/users/:id");
  });

  test("every request ends exactly one server span (concurrent mix of outcomes)", async () => {
    const paths = ["/hello", "/users/1", "/nope", "/boom", "/teapot", "/cpu/100", "/nested"];
    const contexts = paths.flatMap((path) => [0, 1, 2].map(() => ({ path, client: clientContext() })));
    await Promise.all(contexts.map(({ path, client }) => get(path, { traceparent: client.traceparent })));
    const ids = new Set(contexts.map((c) => c.client.traceId));
    await traced.receiver.waitFor(
      (spans) => spans.filter((s) => s.kind === SERVER && ids.has(s.traceId)).length >= contexts.length,
    );
    await Bun.sleep(300);
    for (const { client } of contexts) {
      const servers = traced.receiver.spans.filter((s) => s.kind === SERVER && s.traceId === client.traceId);
      expect(servers).toHaveLength(1);
      expect(servers[0]?.parentSpanId).toBe(client.spanId);
      expect(servers[0]?.endNs).toBeGreaterThanOrEqual(servers[0]?.startNs ?? 0n);
    }
  });
});

describe("tracing with OTEL_EXPORTER_OTLP_ENDPOINT alone (OTLP/HTTP JSON)", () => {
  // No --otel: the variable alone turns the SDK on, as the specification's variables do.
  const traced = tracedProgram([], "http/json");

  test("the JSON exporter's spans carry the same links and attributes", async () => {
    const client = clientContext();
    expect(
      (await fetch(`${traced.app.url}/nested`, { headers: { traceparent: client.traceparent } })).status,
    ).toBe(200);
    const spans = await traceSpans(traced.receiver, client.traceId, 3);
    const server = only(spans, (s) => s.name === "GET /nested");
    expect(server.parentSpanId).toBe(client.spanId);
    expect(server.attributes["http.response.status_code"]).toBe(200);
    expect(only(spans, (s) => s.name === "load-user").parentSpanId).toBe(server.spanId);
    expect(traced.receiver.contentTypes.every((type) => type === "application/json")).toBe(true);
  });
});

describe("tracing across --processes 2", () => {
  const traced = tracedProgram(["--otel", "--processes", "2"], "http/protobuf", 2);

  test("each process exports its own spans, every one linked to its client's span", async () => {
    const clients: { traceId: string; spanId: string; pid: number }[] = [];
    // Fresh connections, so the kernel spreads them over both processes (reusePort).
    for (let i = 0; i < 40; i++) {
      const client = clientContext();
      const response = await fetch(`${traced.app.url}/pid`, {
        headers: { traceparent: client.traceparent, connection: "close" },
        keepalive: false,
      });
      const { pid } = (await response.json()) as { pid: number };
      clients.push({ ...client, pid });
      if (i >= 9 && new Set(clients.map((c) => c.pid)).size >= 2) break;
    }
    const pids = new Set(clients.map((c) => c.pid));
    expect(pids.size).toBe(2);
    const ids = new Set(clients.map((c) => c.traceId));
    await traced.receiver.waitFor(
      (spans) => spans.filter((s) => ids.has(s.traceId)).length >= clients.length,
    );
    for (const client of clients) {
      const span = only(traced.receiver.spans, (s) => s.traceId === client.traceId);
      expect(span.name).toBe("GET /pid");
      expect(span.parentSpanId).toBe(client.spanId);
      // The span was exported by the process that answered.
      expect(span.resource["process.pid"]).toBe(client.pid);
    }
  });
});

describe("--dev with --otel and --metrics", () => {
  const traced = tracedProgram(["--dev", "--otel", "--metrics"], "http/protobuf");

  test("the reloaded child traces and serves /metrics", async () => {
    const client = clientContext();
    expect(
      (await fetch(`${traced.app.url}/users/5`, { headers: { traceparent: client.traceparent } })).status,
    ).toBe(200);
    const [span] = await traceSpans(traced.receiver, client.traceId, 1);
    expect(span?.name).toBe("GET /users/:id");
    expect(span?.parentSpanId).toBe(client.spanId);
    const text = await (await fetch(`${traced.app.url}/metrics`)).text();
    expect(text).toContain(
      'http_server_request_duration_seconds_count{method="GET",route="/users/:id",status="200"} 1',
    );
  });
});
