/**
 * examples/notes (docs/cookbook-notes.md): the "team notes" service used the
 * way a client would, every feature in one run: CRUD with typed args and a
 * zod body, bearer auth, CORS, an upload and its download, the template
 * page, the SSE and WebSocket change feeds, OpenAPI, and MCP tools through
 * the official SDK client.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import app from "../../examples/notes/app.ts";
import type { ServerHandle } from "../../src/index.ts";
import { connect } from "../websocket/helpers.ts";

let server: ServerHandle;
let base: string;
const auth = { authorization: "Bearer user:ada" };
const json = { "content-type": "application/json" };

beforeAll(async () => {
  server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false, handleSignals: false });
  base = server.url;
});
afterAll(() => server.stop(true));

describe("the notes service", () => {
  test("CRUD: auth, typed args, zod body, 404s", async () => {
    expect(
      (await fetch(`${base}/notes`, { method: "POST", headers: json, body: '{"text":"x"}' })).status,
    ).toBe(401);
    const created = await fetch(`${base}/notes`, {
      method: "POST",
      headers: { ...json, ...auth },
      body: '{"text":"buy milk"}',
    });
    expect(created.status).toBe(201);
    const note = (await created.json()) as { id: number; author: string };
    expect(note.author).toBe("ada");
    expect(await (await fetch(`${base}/notes/${note.id}`)).json()).toMatchObject({ text: "buy milk" });
    expect((await fetch(`${base}/notes/999`)).status).toBe(404);
    expect((await fetch(`${base}/notes/0`)).status).toBe(400);
    expect((await fetch(`${base}/notes?limit=1000`)).status).toBe(400);
    const empty = await fetch(`${base}/notes`, {
      method: "POST",
      headers: { ...json, ...auth },
      body: '{"text":""}',
    });
    expect(empty.status).toBe(422);
    const list = (await (await fetch(`${base}/notes?author=ada`)).json()) as unknown[];
    expect(list.length).toBeGreaterThan(0);
  });

  test("CORS for the front end", async () => {
    const res = await fetch(`${base}/notes`, { headers: { origin: "http://localhost:5173" } });
    expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
  });

  test("an upload, its download, and the template page", async () => {
    const created = await fetch(`${base}/notes`, {
      method: "POST",
      headers: { ...json, ...auth },
      body: '{"text":"<b>plan</b>"}',
    });
    const { id } = (await created.json()) as { id: number };
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array([1, 2, 3])]), "plan.bin");
    const up = await fetch(`${base}/notes/${id}/attachment`, { method: "POST", headers: auth, body: form });
    expect(await up.json()).toEqual({ id, attachment: "plan.bin", bytes: 3 });
    const down = await fetch(`${base}/notes/${id}/attachment`);
    expect(new Uint8Array(await down.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
    expect(down.headers.get("content-disposition")).toBe('attachment; filename="plan.bin"');
    const page = await (await fetch(`${base}/`)).text();
    expect(page).toContain("&lt;b&gt;plan&lt;&#x2F;b&gt;");
    expect(page).not.toContain("<b>plan");
    expect(page).toContain(`href="/notes/${id}/attachment"`);
  });

  test("the change feeds: SSE and WebSocket see a new note", async () => {
    const ws = await connect(`${base.replace("http", "ws")}/live`);
    const controller = new AbortController();
    const feed = await fetch(`${base}/changes`, { signal: controller.signal });
    const reader = (feed.body as ReadableStream<Uint8Array>).getReader();
    await Bun.sleep(50);
    await fetch(`${base}/notes`, { method: "POST", headers: { ...json, ...auth }, body: '{"text":"live"}' });
    expect(await ws.nextJson()).toMatchObject({ type: "created", note: { text: "live" } });
    let text = "";
    while (!text.includes('"live"')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain('"type":"created"');
    controller.abort();
    ws.close();
  });

  test("OpenAPI documents the routes with their bounds", async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { parameters?: { name: string; schema: Record<string, unknown> }[] }>
      >;
    };
    const limit = doc.paths["/notes"]?.get?.parameters?.find((p) => p.name === "limit");
    expect(limit?.schema).toMatchObject({ minimum: 1, maximum: 100 });
    expect(doc.paths["/notes/{id}/attachment"]?.post).toBeDefined();
  });

  test("MCP tools through the official SDK client", async () => {
    const client = new Client({ name: "notes-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name).sort()).toEqual(["add_note", "list_notes"]);
      const added = await client.callTool({ name: "add_note", arguments: { text: "from mcp" } });
      expect(JSON.stringify(added.content)).toContain("added note");
      const listed = await client.callTool({ name: "list_notes", arguments: { limit: 100 } });
      expect(JSON.stringify(listed.content)).toContain("from mcp");
    } finally {
      await client.close();
    }
  });
});
