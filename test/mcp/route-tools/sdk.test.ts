/**
 * Route tools through the MCP endpoint, with the official SDK client over
 * real HTTP: listed with their schemas, called with and without the caller's
 * token, with a token lacking a tool's scope, with bad arguments (the route's
 * 400 as isError), and through a before-middleware that short-circuits.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as v2 from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";
import {
  AuthenticationHandler,
  Identity,
  type Request,
  type ServerHandle,
  SubRouter,
  t,
  Webfw,
} from "../../../src/index.ts";

const TOKENS: Record<string, { sub: string; scope: string }> = {
  reader: { sub: "rita", scope: "mcp" },
  writer: { sub: "wes", scope: "mcp notes:write" },
};

class TableAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    const claims = TOKENS[this.tokenGetter.getToken(request) ?? ""];
    return claims ? new Identity({ claims }) : null;
  }
}

let server: ServerHandle;
let resource: string;
const notes = new Map<number, { id: number; title: string; by: string }>();

beforeAll(async () => {
  const app = new Webfw(import.meta.path);
  app.configureAuthentication(new TableAuth());
  app.beforeRequest("/notes/:id", (request) => {
    // A policy that answers before the handler runs: the tool gets exactly this answer.
    if (request.pathParams.id === "13") return new globalThis.Response("note 13 is sealed", { status: 423 });
  });
  app.get(
    "/notes/:id",
    (request) => {
      const { args, identity } = request;
      const note = notes.get(args.id);
      return note
        ? { ...note, readBy: identity?.claims.sub ?? null, requestId: request.id }
        : [{ error: `no note ${args.id}` }, 404];
    },
    {
      args: { id: t.int().min(1) },
      summary: "Read a note",
      responses: {
        // Every field the tests read is declared: the response contract sends only those (docs/responses.md).
        "200": {
          description: "the note",
          schema: z.object({
            id: z.number(),
            title: z.string(),
            by: z.string(),
            readBy: z.string().nullable(),
            requestId: z.string(),
          }),
        },
      },
      mcp: true,
    },
  );
  app.post(
    "/notes",
    ({ parsedBody, identity }) => {
      const note = { id: notes.size + 1, title: parsedBody.title, by: String(identity?.claims.sub) };
      notes.set(note.id, note);
      return [note, 201];
    },
    {
      body: z.object({ title: z.string().min(3) }),
      authRequired: true,
      mcp: { name: "add_note", scopes: ["notes:write"] },
    },
  );
  const admin = new SubRouter(import.meta.path, { prefix: "/admin" });
  admin.get("/stats", () => ({ notes: notes.size }), { authRequired: true });
  app.includeRouter(admin);
  app.get("/health", () => "ok", { mcp: false });
  app.mcp.exposeRoutes((route) => route.path.startsWith("/admin"));
  const port = (() => {
    const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const free = probe.port as number;
    probe.stop(true);
    return free;
  })();
  resource = `http://127.0.0.1:${port}/mcp`;
  app.mcp.configure({
    auth: { resource, authorizationServers: ["http://127.0.0.1:9/"], scopes: ["mcp"] },
  });
  server = await app.start({ port, host: "127.0.0.1" });
});

afterAll(() => server?.stop(true));

async function connect(token?: string): Promise<Client> {
  const client = new Client({ name: "route-tools", version: "1.0.0" });
  // The reader sends its own request id: the route called as a tool carries the MCP request's id.
  const headers: Record<string, string> = token === "reader" ? { "x-request-id": "trace-me-1" } : {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const requestInit = { headers };
  await client.connect(new StreamableHTTPClientTransport(new URL(resource), { requestInit }));
  return client;
}

describe("route tools over the SDK client", () => {
  test("without a token the endpoint answers 401 with the challenge; the client cannot connect", async () => {
    await expect(connect()).rejects.toMatchObject({ code: 401 });
  });

  test("listed with schemas from the routes; mcp: false and unfiltered routes are not tools", async () => {
    const client = await connect("reader");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["add_note", "get_admin_stats", "get_notes_by_id"]);
    const read = tools.find((tool) => tool.name === "get_notes_by_id");
    expect(read).toMatchObject({
      title: "Read a note",
      inputSchema: { type: "object", properties: { id: { type: "integer", minimum: 1 } }, required: ["id"] },
      outputSchema: { type: "object", properties: { id: { type: "number" }, title: { type: "string" } } },
      annotations: { readOnlyHint: true },
    });
    await client.close();
  });

  test("with the token: the route runs as the caller and its answer is the structured result", async () => {
    const writer = await connect("writer");
    const created = await writer.callTool({ name: "add_note", arguments: { title: "first" } });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toEqual({ id: 1, title: "first", by: "wes" });
    const reader = await connect("reader");
    const read = await reader.callTool({ name: "get_notes_by_id", arguments: { id: 1 } });
    expect(read.structuredContent).toEqual({
      id: 1,
      title: "first",
      by: "wes",
      readBy: "rita",
      requestId: "trace-me-1",
    });
    const stats = await reader.callTool({ name: "get_admin_stats", arguments: {} });
    expect(stats.structuredContent).toEqual({ notes: 1 });
    await writer.close();
    await reader.close();
  });

  test("a token without the tool's scope: HTTP 403 insufficient_scope naming it, the route never runs", async () => {
    const reader = await connect("reader");
    const before = notes.size;
    const error = await reader
      .callTool({ name: "add_note", arguments: { title: "sneaky" } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 403 });
    expect(String((error as Error).message)).toContain("insufficient_scope");
    expect(notes.size).toBe(before);
    // Raw, to read the header the SDK consumed.
    const raw = await fetch(resource, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: "Bearer reader",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "add_note", arguments: { title: "x" } },
      }),
    });
    expect(raw.status).toBe(403);
    expect(raw.headers.get("www-authenticate")).toContain(
      'error="insufficient_scope", scope="mcp notes:write"',
    );
    await reader.close();
  });

  test("bad arguments: the route's own 400 and 422 come back as isError results", async () => {
    const writer = await connect("writer");
    const notInt = await writer.callTool({ name: "get_notes_by_id", arguments: { id: "one" } });
    expect(notInt.isError).toBe(true);
    expect((notInt.content as { text: string }[])[0]?.text).toStartWith("400 Bad Request: ");
    expect(JSON.stringify(notInt.content)).toContain("'id'");
    const tooSmall = await writer.callTool({ name: "get_notes_by_id", arguments: { id: 0 } });
    expect(tooSmall.isError).toBe(true);
    const shortTitle = await writer.callTool({ name: "add_note", arguments: { title: "ab" } });
    expect(shortTitle.isError).toBe(true);
    expect((shortTitle.content as { text: string }[])[0]?.text).toStartWith("422 Unprocessable Entity: ");
    const unknown = await writer.callTool({ name: "add_note", arguments: { title: "abc", extra: 1 } });
    expect(unknown).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "unknown argument 'extra'" }],
    });
    const missing = await writer.callTool({ name: "get_notes_by_id", arguments: { id: 404 } });
    expect(missing).toMatchObject({
      isError: true,
      content: [{ type: "text", text: '404 Not Found: {"error":"no note 404"}' }],
    });
    await writer.close();
  });

  test("a before-middleware that short-circuits gives the tool its answer", async () => {
    const reader = await connect("reader");
    const sealed = await reader.callTool({ name: "get_notes_by_id", arguments: { id: 13 } });
    expect(sealed).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "423 Locked: note 13 is sealed" }],
    });
    await reader.close();
  });
});

describe("the v2 client (@modelcontextprotocol/client)", () => {
  test("lists the route tools and calls one; its structured result passes the client's outputSchema check", async () => {
    const client = new v2.Client({ name: "route-tools-v2", version: "1.0.0" });
    await client.connect(
      new v2.StreamableHTTPClientTransport(new URL(resource), {
        requestInit: { headers: { authorization: "Bearer writer" } },
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["add_note", "get_admin_stats", "get_notes_by_id"]);
    const created = await client.callTool({ name: "add_note", arguments: { title: "from v2" } });
    const id = (created.structuredContent as { id: number }).id;
    const read = await client.callTool({ name: "get_notes_by_id", arguments: { id } });
    expect(read.isError).toBeFalsy();
    expect(read.structuredContent).toMatchObject({ id, title: "from v2", by: "wes", readBy: "wes" });
    // No id of its own: the MCP request's generated one (a UUIDv7) reaches the route.
    expect((read.structuredContent as { requestId: string }).requestId).toMatch(/^[0-9a-f-]{36}$/);
    const bad = await client.callTool({ name: "get_notes_by_id", arguments: { id: "x" } });
    expect(bad.isError).toBe(true);
    await client.close();
  });
});
