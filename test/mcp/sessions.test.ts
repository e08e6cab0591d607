/**
 * Streamable HTTP sessions over raw HTTP: a stream dropped mid-call and resumed
 * with `Last-Event-ID`, the GET notification stream, DELETE, unknown sessions,
 * a session cap, and the SSE-or-JSON choice.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { t, Webfw } from "../../src/index.ts";
import type { ServerHandle } from "../../src/launch/server.ts";
import { initializeMessage, type McpHeaders, mcpPost, openSession } from "./helpers/raw-session.ts";

let server: ServerHandle;
let url: string;
const app = new Webfw(import.meta.path);
app.mcp.configure({ maxSessions: 50 });
app.mcp.tool(
  async ({ ms }, ctx) => {
    await ctx.progress(1, 2, "started");
    await Bun.sleep(ms);
    return `done after ${ms} ms`;
  },
  { name: "slow", args: { ms: t.int().min(0).max(5000) } },
);
app.mcp.tool(() => "quick", { name: "quick" });
const aborted: string[] = [];
app.mcp.tool(
  async ({ id }, ctx) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 10_000);
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        aborted.push(id);
        resolve();
      });
    });
    return "over";
  },
  { name: "hang", args: { id: t.str() } },
);

beforeAll(async () => {
  server = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false });
  url = `http://127.0.0.1:${server.port}/mcp`;
});
afterAll(async () => {
  await server.stop();
});

const post = (body: unknown, headers: McpHeaders = {}, signal?: AbortSignal) =>
  mcpPost(url, body, headers, signal);
const open = () => openSession(url);

interface SseEvent {
  id?: string;
  data: string;
}

/** Reads SSE events until `enough` says stop (or the stream ends). */
async function readEvents(response: Response, enough: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = "";
  while (!enough(events)) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event: SseEvent = { data: "" };
      for (const line of block.split("\n")) {
        if (line.startsWith("id:")) event.id = line.slice(3).trim();
        if (line.startsWith("data:")) event.data += line.slice(5).trim();
      }
      if (event.id !== undefined || event.data !== "") events.push(event);
    }
  }
  await reader.cancel().catch(() => undefined);
  return events;
}

describe("Streamable HTTP sessions", () => {
  test("a call without notifications answers JSON; one with progress answers SSE", async () => {
    const headers = await open();
    const quick = await post(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "quick" } },
      headers,
    );
    expect(quick.headers.get("content-type")).toBe("application/json");
    expect((await quick.json()).result.content[0].text).toBe("quick");
    const slow = await post(
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "slow", arguments: { ms: 10 }, _meta: { progressToken: "p" } },
      },
      headers,
    );
    expect(slow.headers.get("content-type")).toBe("text/event-stream");
    const events = await readEvents(slow, (seen) => seen.some((event) => event.data.includes('"id":2')));
    const messages = events.filter((event) => event.data !== "").map((event) => JSON.parse(event.data));
    expect(messages[0].method).toBe("notifications/progress");
    expect(messages.at(-1).result.content[0].text).toBe("done after 10 ms");
  });

  test("a stream dropped mid-call is resumed with Last-Event-ID and delivers the result", async () => {
    const headers = await open();
    const controller = new AbortController();
    const call = await post(
      {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "slow", arguments: { ms: 300 }, _meta: { progressToken: 7 } },
      },
      headers,
      controller.signal,
    );
    // Read up to the progress notification, then drop the connection before the result.
    const before = await readEvents(call, (seen) => seen.some((event) => event.data.includes("progress")));
    controller.abort();
    const last = before.filter((event) => event.id !== undefined).at(-1);
    expect(last?.id).toBeDefined();
    const resumed = await fetch(url, {
      headers: { ...headers, accept: "text/event-stream", "last-event-id": last?.id ?? "" },
    });
    expect(resumed.status).toBe(200);
    const after = await readEvents(resumed, (seen) => seen.some((event) => event.data.includes('"id":7')));
    const result = after.map((event) => event.data).find((data) => data.includes('"id":7'));
    expect(JSON.parse(result ?? "{}").result.content[0].text).toBe("done after 300 ms");
    // Nothing before Last-Event-ID comes again.
    expect(after.some((event) => event.data.includes("notifications/progress"))).toBe(false);
  });

  test("GET opens the session's notification stream; a second one is refused (409)", async () => {
    const headers = await open();
    const first = await fetch(url, { headers: { ...headers, accept: "text/event-stream" } });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("text/event-stream");
    const second = await fetch(url, { headers: { ...headers, accept: "text/event-stream" } });
    expect(second.status).toBe(409);
    await second.body?.cancel();
    await first.body?.cancel();
  });

  test("DELETE ends the session's calls: their signals fire", async () => {
    const headers = await open();
    const call = post(
      { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "hang", arguments: { id: "deleted" } } },
      headers,
    );
    await Bun.sleep(100);
    const ended = await fetch(url, { method: "DELETE", headers });
    expect(ended.status).toBe(200);
    for (let i = 0; i < 100 && !aborted.includes("deleted"); i++) await Bun.sleep(10);
    expect(aborted).toContain("deleted");
    await (await call).body?.cancel();
  });

  test("unknown or ended sessions: 404 -32001; a bad Last-Event-ID: 400", async () => {
    const headers = await open();
    const badEvent = await fetch(url, {
      headers: { ...headers, accept: "text/event-stream", "last-event-id": "garbage" },
    });
    expect(badEvent.status).toBe(400);
    await badEvent.body?.cancel();
    const ended = await fetch(url, { method: "DELETE", headers });
    expect(ended.status).toBe(200);
    for (const method of ["POST", "GET", "DELETE"]) {
      const response =
        method === "POST"
          ? await post({ jsonrpc: "2.0", id: 1, method: "ping" }, headers)
          : await fetch(url, { method, headers: { ...headers, accept: "text/event-stream" } });
      expect(response.status).toBe(404);
      expect((await response.json()).error.code).toBe(-32001);
    }
  });

  test("a second initialize on a session is refused; a malformed one opens nothing", async () => {
    const headers = await open();
    const again = await post(initializeMessage({ id: 9 }), headers);
    expect(again.status).toBe(400);
    await again.body?.cancel();
    const malformed = await post({
      jsonrpc: "2.0",
      id: 10,
      method: "initialize",
      params: { protocolVersion: 1 },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get("mcp-session-id")).toBeNull();
    const refused = await malformed.json();
    expect(refused.id).toBeNull();
  });

  test("the session cap answers 503 with Retry-After once every session is in use", async () => {
    const capped = new Webfw(import.meta.path);
    capped.mcp.configure({ maxSessions: 1 });
    capped.mcp.tool(() => "x", { name: "x" });
    const handle = await capped.start({ port: 0, host: "127.0.0.1", handleSignals: false });
    try {
      const cappedUrl = `http://127.0.0.1:${handle.port}/mcp`;
      const init = () => mcpPost(cappedUrl, initializeMessage());
      const first = await init();
      expect(first.status).toBe(200);
      await first.body?.cancel();
      // Used (a request after initialize): a never-used session would make room instead
      // (test/mcp/session-bounds.test.ts).
      const listed = await mcpPost(
        cappedUrl,
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { "mcp-session-id": first.headers.get("mcp-session-id") ?? "" },
      );
      expect(listed.status).toBe(200);
      await listed.body?.cancel();
      const second = await init();
      expect(second.status).toBe(503);
      expect(second.headers.get("retry-after")).toBe("5");
      await second.body?.cancel();
    } finally {
      await handle.stop();
    }
  });
});
