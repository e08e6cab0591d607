/**
 * Two builds of one app share no MCP state (docs/mcp.md, "The app's declarations and each build's
 * endpoint"): each `start()` (and the in-process client) serves its own endpoint, with its own
 * sessions and route tools, made from what `app.mcp` declared. What the user declares at run time
 * (a tool, a resource update) reaches every running build.
 */
import { afterEach, describe, expect, test } from "bun:test";
import * as v2 from "@modelcontextprotocol/client";
import { t, Webfw } from "../../src/index.ts";
import type { ServerHandle } from "../../src/launch/server.ts";
import {
  callTool,
  initializeMessage,
  type McpHeaders,
  mcpPost,
  openSession,
  PROTOCOL_VERSION,
} from "./helpers/raw-session.ts";

interface Json {
  [key: string]: unknown;
}

/** A tool's answer: its status and its JSON-RPC body. */
async function called(url: string, name: string, args: Json, headers: McpHeaders) {
  const response = await callTool(url, headers, name, args);
  return { status: response.status, body: (await response.json()) as Json };
}

async function toolNames(url: string, headers: McpHeaders): Promise<string[]> {
  const response = await mcpPost(url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, headers);
  const body = (await response.json()) as { result: { tools: { name: string }[] } };
  return body.result.tools.map((tool) => tool.name);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300 && !condition(); i++) await Bun.sleep(10);
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

const servers: ServerHandle[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop(true);
});

function makeApp(): Webfw {
  const app = new Webfw(import.meta.path, { openapi: false });
  app.mcp.tool(({ a, b }) => String(a + b), { name: "add", args: { a: t.int(), b: t.int() } });
  app.mcp.resource("counter://value", () => "1");
  app.get("/notes/:id", ({ args }) => ({ id: args.id }), { mcp: true, args: { id: t.int() } });
  return app;
}

async function start(app: Webfw): Promise<{ url: string; server: ServerHandle }> {
  const server = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false, accessLog: false });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}/mcp`, server };
}

describe("two builds of one app", () => {
  test("a session opened on one is unknown to the other; each serves its own route tools", async () => {
    const app = makeApp();
    const one = await start(app);
    const two = await start(app);
    const session = await openSession(one.url);
    expect((await called(one.url, "add", { a: 2, b: 40 }, session)).body).toMatchObject({
      result: { content: [{ type: "text", text: "42" }] },
    });
    // The other build never heard of it: 404, as for any unknown session.
    const elsewhere = await called(two.url, "add", { a: 1, b: 1 }, session);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toMatchObject({ error: { code: -32001 } });
    // Each build lists the app's tools and its own route tool, once.
    const other = await openSession(two.url);
    expect(await toolNames(one.url, session)).toEqual(["add", "get_notes_by_id"]);
    expect(await toolNames(two.url, other)).toEqual(["add", "get_notes_by_id"]);
    const note = await called(two.url, "get_notes_by_id", { id: 7 }, other);
    expect(note.body).toMatchObject({ result: { structuredContent: { id: 7 } } });
    // The route tools live on the builds' endpoints, not on app.mcp.
    expect([...app.mcp.registry.tools.keys()]).toEqual(["add"]);
  });

  test("the in-process client and start() do not share sessions", async () => {
    const app = makeApp();
    const served = await start(app);
    const init = await app.request("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(initializeMessage({ client: "in-process" })),
    });
    expect(init.status).toBe(200);
    await init.body?.cancel();
    const session = init.headers.get("mcp-session-id") ?? "";
    expect(session).not.toBe("");
    const headers = { "mcp-session-id": session, "mcp-protocol-version": PROTOCOL_VERSION };
    expect((await called(served.url, "add", { a: 1, b: 2 }, headers)).status).toBe(404);
    const inProcess = await app.request("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...headers },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "add", arguments: { a: 1, b: 2 } },
      }),
    });
    expect(inProcess.status).toBe(200);
    expect(await inProcess.json()).toMatchObject({ result: { content: [{ text: "3" }] } });
  });

  test("stopping one leaves the other's sessions, open streams and route tools working", async () => {
    const app = makeApp();
    const one = await start(app);
    const two = await start(app);
    const onOne = await openSession(one.url);
    const onTwo = await openSession(two.url);
    // An open GET stream on the survivor: stopping the other build must not end it.
    const stream = await fetch(two.url, { headers: { accept: "text/event-stream", ...onTwo } });
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain(": stream open");
    const ended = reader.read().then(() => "ended");
    await one.server.stop(true);
    servers.splice(servers.indexOf(one.server), 1);
    await expect(fetch(one.url, { method: "POST" })).rejects.toThrow();
    expect(await Promise.race([ended, Bun.sleep(300).then(() => "open")])).toBe("open");
    expect((await called(two.url, "add", { a: 20, b: 22 }, onTwo)).body).toMatchObject({
      result: { content: [{ text: "42" }] },
    });
    expect((await called(two.url, "get_notes_by_id", { id: 3 }, onTwo)).body).toMatchObject({
      result: { structuredContent: { id: 3 } },
    });
    // The stopped build's session is not known to the survivor either.
    expect((await called(two.url, "add", { a: 1, b: 1 }, onOne)).status).toBe(404);
    await reader.cancel();
  });

  test("configure() after a build changes the next build only", async () => {
    const app = makeApp();
    const stateful = await start(app);
    app.mcp.configure({ stateless: true });
    const stateless = await start(app);
    // The first build keeps the options it was built with: sessions.
    await openSession(stateful.url);
    // The second was built stateless: an initialize opens no session.
    const init = await mcpPost(stateless.url, initializeMessage());
    expect(init.status).toBe(200);
    expect(init.headers.get("mcp-session-id")).toBeNull();
    await init.body?.cancel();
  });

  test("what app.mcp declares at run time reaches every running build", async () => {
    const app = makeApp();
    const one = await start(app);
    const two = await start(app);
    const seen = {
      one: { updated: [] as string[], listChanged: 0 },
      two: { updated: [] as string[], listChanged: 0 },
    };
    const clients: v2.Client[] = [];
    for (const [url, log] of [
      [one.url, seen.one],
      [two.url, seen.two],
    ] as const) {
      const client = new v2.Client({ name: "builds", version: "1.0.0" });
      client.setNotificationHandler("notifications/resources/updated", (n) => {
        log.updated.push(n.params.uri);
      });
      client.setNotificationHandler("notifications/tools/list_changed", () => {
        log.listChanged++;
      });
      await client.connect(new v2.StreamableHTTPClientTransport(new URL(url)));
      await client.subscribeResource({ uri: "counter://value" });
      clients.push(client);
    }
    try {
      await app.mcp.notifyResourceUpdated("counter://value");
      await until(() => seen.one.updated.length === 1 && seen.two.updated.length === 1, "resource updates");
      app.mcp.tool(() => "late", { name: "late" });
      await until(() => seen.one.listChanged > 0 && seen.two.listChanged > 0, "tools/list_changed");
      for (const client of clients) {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(["add", "late", "get_notes_by_id"]);
        expect(await client.callTool({ name: "late", arguments: {} })).toMatchObject({
          content: [{ text: "late" }],
        });
      }
      // A route tool's name is taken while a build serves it.
      expect(() => app.mcp.tool(() => "x", { name: "get_notes_by_id" })).toThrow("already registered");
      // Exactly once each: the update was not delivered twice by two builds.
      expect(seen.one.updated).toEqual(["counter://value"]);
      expect(seen.two.updated).toEqual(["counter://value"]);
    } finally {
      for (const client of clients) await client.close();
    }
  });
});
