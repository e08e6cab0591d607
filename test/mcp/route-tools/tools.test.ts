/**
 * Routes as MCP tools, below the protocol: names, schemas, and calls that run
 * the route's own pipeline (the SDK suite in sdk.test.ts drives the same over HTTP).
 */
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import {
  AuthenticationHandler,
  HttpError,
  Identity,
  type Request,
  SubRouter,
  t,
  Webfw,
} from "../../../src/index.ts";
import type { RouteTool } from "../../../src/mcp/mount-extras.ts";

class TokenAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    const token = this.tokenGetter.getToken(request);
    return token === "good" ? new Identity({ claims: { sub: "ann", scope: "notes:read" } }) : null;
  }
}

async function toolsOf(app: Webfw): Promise<Map<string, RouteTool>> {
  const built = await app.build();
  return new Map((built.mounted(app.mcpMount)?.routeTools ?? []).map((tool) => [tool.name, tool]));
}

function only<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("missing");
  return value;
}

const noCaller = { headers: null };

describe("names", () => {
  test("default names come from method and path, params as by_<name>", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/", () => "root", { mcp: true });
    app.get("/users/:id", () => ({}), { mcp: true });
    app.post("/users/:id/notes", () => ({}), { mcp: true });
    app.delete("/files/*rest", () => null, { mcp: true });
    app.get("/v1.2/user-info", () => ({}), { mcp: true });
    app.get("/not-a-tool", () => "x");
    const names = [...(await toolsOf(app)).keys()];
    expect(names).toEqual([
      "get_root",
      "get_users_by_id",
      "post_users_by_id_notes",
      "delete_files_by_rest",
      "get_v1.2_user-info",
    ]);
  });

  test("an explicit name is used and checked against the MCP name rules", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/a", () => "a", { mcp: { name: "fetch.a-thing_1" } });
    expect([...(await toolsOf(app)).keys()]).toEqual(["fetch.a-thing_1"]);
    const bad = new Webfw(import.meta.path);
    bad.get("/a", () => "a", { mcp: { name: "has space" } });
    await expect(bad.build()).rejects.toThrow("MCP tool name 'has space' is invalid");
    const long = new Webfw(import.meta.path);
    long.get("/a", () => "a", { mcp: { name: "x".repeat(129) } });
    await expect(long.build()).rejects.toThrow("is invalid");
  });

  test("a clash is an error at start naming both routes", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/users/:id", () => ({}), { mcp: true });
    app.get("/users/by/id", () => ({}), { mcp: true });
    await expect(app.build()).rejects.toThrow(
      "MCP tool name 'get_users_by_id' of GET /users/by/id is already used by GET /users/:id",
    );
    const start = app.start({ port: 0, host: "127.0.0.1" });
    await expect(start).rejects.toThrow("already used");
  });

  test("a route tool may not take the name of an app.mcp.tool; building twice keeps one set", async () => {
    const app = new Webfw(import.meta.path);
    app.mcp.tool(() => "hand", { name: "get_a" });
    app.get("/a", () => "a", { mcp: true });
    await expect(app.build()).rejects.toThrow(
      "MCP tool name 'get_a' of GET /a is already used by app.mcp.tool 'get_a'",
    );
    const twice = new Webfw(import.meta.path);
    twice.get("/b", () => "b", { mcp: true });
    const first = await twice.build();
    const second = await twice.build(); // app.request() then start(): each build has its own route tools
    // Route tools belong to the build's endpoint, not to app.mcp (docs/mcp.md).
    expect([...twice.mcp.registry.tools.keys()]).toEqual([]);
    for (const built of [first, second]) {
      expect([...(built.mounted(twice.mcpMount)?.endpoint?.catalog.tools.keys() ?? [])]).toEqual(["get_b"]);
    }
    // While a build serves it, the name is taken for app.mcp.tool too.
    expect(() => twice.mcp.tool(() => "x", { name: "get_b" })).toThrow("already registered");
  });

  test("mcp on a HEAD route, or a malformed option, is refused at start", async () => {
    const head = new Webfw(import.meta.path);
    head.head("/h", () => null, { mcp: true });
    await expect(head.build()).rejects.toThrow("only GET, POST, PUT, PATCH and DELETE");
    const bad = new Webfw(import.meta.path);
    bad.get("/h", () => null, { mcp: { scopes: ["has space"] } });
    await expect(bad.build()).rejects.toThrow("not a valid OAuth scope");
    const cases: [unknown, string][] = [
      ["yes", "the mcp option must be true, false or"],
      [{ title: 3 }, "mcp.title must be a string"],
      [{ authRequired: "no" }, "mcp.authRequired must be a boolean"],
      [{ annotations: "ro" }, "mcp.annotations must be an object"],
      [{ scopes: "a" }, "must be an array"],
    ];
    for (const [option, message] of cases) {
      const app = new Webfw(import.meta.path);
      app.get("/x", () => null, { mcp: option as never });
      await expect(app.build()).rejects.toThrow(message);
    }
    expect(() => new Webfw(import.meta.path).mcp.exposeRoutes("all" as never)).toThrow("must be a function");
  });

  test("exposeRoutes takes every tool-able route, honours mcp: false and the filter", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/a", () => "a");
    app.post("/b", () => "b");
    app.get("/secret", () => "s", { mcp: false });
    app.head("/h", () => null);
    const api = new SubRouter(import.meta.path, { prefix: "/api" });
    api.get("/items/:id", () => ({}), { summary: "One item" });
    app.includeRouter(api);
    app.mcp.exposeRoutes();
    expect([...(await toolsOf(app)).keys()]).toEqual(["get_a", "post_b", "get_api_items_by_id"]);

    const filtered = new Webfw(import.meta.path);
    filtered.get("/a", () => "a");
    filtered.get("/api/x", () => "x");
    filtered.post("/api/y", () => "y");
    filtered.mcp.exposeRoutes((route) => route.path.startsWith("/api") && route.method === "GET");
    expect([...(await toolsOf(filtered)).keys()]).toEqual(["get_api_x"]);
  });

  test("an app without any of it builds no tools and no endpoint", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/a", () => "a");
    const built = await app.build();
    expect(built.mounted(app.mcpMount)?.routeTools ?? []).toEqual([]);
    expect((await app.request("/mcp", { method: "POST" })).status).toBe(404);
  });
});

describe("schemas", () => {
  test("path params, typed args and an object body merge into one input schema", async () => {
    const app = new Webfw(import.meta.path);
    app.post("/users/:id/notes", () => ({}), {
      mcp: true,
      args: { id: t.int(), draft: t.bool().default(false), tags: t.list(t.str()) },
      body: t.object({ title: t.str(), text: t.optional(t.str()) }),
      summary: "Add a note",
      description: "Adds a note to a user.",
    });
    const tool = only((await toolsOf(app)).get("post_users_by_id_notes"));
    expect(tool.inputSchema).toEqual({
      type: "object",
      properties: {
        id: { type: "integer" },
        draft: { type: "boolean", default: false },
        tags: { type: "array", items: { type: "string" } },
        title: { type: "string" },
        text: { type: "string" },
      },
      required: ["id", "title"],
      additionalProperties: false,
    });
    expect(tool.title).toBe("Add a note");
    expect(tool.description).toBe("Adds a note to a user.");
    expect(tool.annotations).toEqual({ readOnlyHint: false, title: "Add a note" });
  });

  test("a zod body goes through its JSON Schema; a clashing or non-object body is one `body` argument", async () => {
    const app = new Webfw(import.meta.path);
    app.put("/items/:id", () => ({}), {
      mcp: true,
      body: z.object({ id: z.string(), price: z.number().min(0) }),
    });
    app.post("/batch", () => ({}), { mcp: true, body: z.array(z.string()) });
    app.post("/free", () => ({}), { mcp: true });
    const tools = await toolsOf(app);
    const put = only(tools.get("put_items_by_id"));
    expect(put.inputSchema.properties?.id).toEqual({ type: "string", minLength: 1 });
    expect(put.inputSchema.properties?.body).toMatchObject({
      type: "object",
      properties: { id: { type: "string" }, price: { type: "number", minimum: 0 } },
    });
    expect(put.inputSchema.required).toEqual(["id", "body"]);
    expect(put.annotations).toEqual({ readOnlyHint: false, idempotentHint: true });
    const batch = only(tools.get("post_batch"));
    expect(batch.inputSchema.properties?.body).toMatchObject({ type: "array", items: { type: "string" } });
    const free = only(tools.get("post_free"));
    expect(free.inputSchema.required).toBeUndefined();
    expect(free.inputSchema.properties?.body).toEqual({
      description: "The JSON request body, if the endpoint takes one.",
    });
  });

  test("outputSchema comes from the documented 2xx response; non-objects are wrapped as { result }", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/user", () => ({ id: 1, name: "ann" }), {
      mcp: true,
      responses: { "200": { description: "a user", schema: z.object({ id: z.number(), name: z.string() }) } },
    });
    app.get("/names", () => ["a"], {
      mcp: true,
      responses: { "200": { description: "names", schema: t.list(t.str()) } },
    });
    app.get("/plain", () => "x", { mcp: true });
    const tools = await toolsOf(app);
    expect(only(tools.get("get_user")).outputSchema).toMatchObject({
      type: "object",
      properties: { id: { type: "number" }, name: { type: "string" } },
    });
    expect(only(tools.get("get_names")).outputSchema).toEqual({
      type: "object",
      properties: { result: { type: "array", items: { type: "string" } } },
      required: ["result"],
    });
    expect(only(tools.get("get_plain")).outputSchema).toBeUndefined();
    const names = await only(tools.get("get_names")).call({}, noCaller);
    expect(names.structuredContent).toEqual({ result: ["a"] });
  });
});

describe("calls run the route's whole pipeline", () => {
  function notesApp(): Webfw {
    const app = new Webfw(import.meta.path);
    app.configureAuthentication(new TokenAuth());
    const seen: string[] = [];
    app.injectGlobal({ seen });
    app.beforeRequest("/notes/:id", (request) => {
      if (request.pathParams.id === "blocked")
        return new globalThis.Response("blocked by policy", { status: 403 });
      seen.push(`before ${request.pathParams.id}`);
    });
    app.afterRequest((response) => {
      response.headers.set("x-after", "1");
    });
    app.get(
      "/notes/:id",
      ({ args, identity }) => ({ id: args.id, verbose: args.verbose, who: identity?.claims.sub ?? null }),
      { mcp: true, args: { id: t.str(), verbose: t.bool().default(false) } },
    );
    app.post(
      "/notes",
      ({ parsedBody, identity }) => [{ created: parsedBody, by: identity?.claims.sub }, 201],
      {
        mcp: true,
        authRequired: true,
        body: t.object({ title: t.str().minLength(1) }),
      },
    );
    app.get("/count", ({ args }) => ({ n: args.n * 2 }), { mcp: true, args: { n: t.int() } });
    app.get(
      "/boom",
      () => {
        throw new Error("secret detail");
      },
      { mcp: true },
    );
    app.get(
      "/teapot",
      () => {
        throw new HttpError(418, "no coffee here");
      },
      { mcp: true },
    );
    app.get(
      "/png",
      () =>
        new globalThis.Response(new Uint8Array([137, 80, 78, 71]), {
          headers: { "content-type": "image/png" },
        }),
      { mcp: true },
    );
    app.get("/blob", () => new Uint8Array([1, 2, 3]), { mcp: true });
    app.get("/text", () => "just text", { mcp: true });
    app.delete("/notes/:id", () => null, { mcp: true });
    app.get("/list", () => [1, 2], { mcp: true });
    app.get(
      "/events",
      () =>
        new globalThis.Response(new ReadableStream({ start() {} }), {
          headers: { "content-type": "text/event-stream" },
        }),
      { mcp: true },
    );
    return app;
  }

  test("2xx JSON becomes structuredContent plus the same JSON as text", async () => {
    const tools = await toolsOf(notesApp());
    const result = await only(tools.get("get_notes_by_id")).call({ id: "n1", verbose: true }, noCaller);
    expect(result).toEqual({
      content: [{ type: "text", text: '{"id":"n1","verbose":true,"who":null}' }],
      structuredContent: { id: "n1", verbose: true, who: null },
    });
    expect((await only(tools.get("get_list")).call({}, noCaller)).structuredContent).toEqual({
      result: [1, 2],
    });
  });

  test("the caller's token reaches the route's authentication; without it the route's 401 is an isError", async () => {
    const tools = await toolsOf(notesApp());
    const create = only(tools.get("post_notes"));
    expect(create.access.authRequired).toBe(true);
    const headers = new globalThis.Headers({
      authorization: "Bearer good",
      "mcp-session-id": "s1",
      "content-type": "application/json",
    });
    const ok = await create.call({ title: "hello" }, { headers });
    expect(ok.isError).toBeUndefined();
    expect(ok.structuredContent).toEqual({ created: { title: "hello" }, by: "ann" });
    const who = await only(tools.get("get_notes_by_id")).call({ id: "x" }, { headers });
    expect(who.structuredContent).toMatchObject({ who: "ann" });
    const anonymous = await create.call({ title: "hello" }, noCaller);
    expect(anonymous).toEqual({
      content: [{ type: "text", text: "401 Unauthorized: Unauthorized" }],
      isError: true,
    });
  });

  test("bad arguments: the route's own 400/422 messages come back as isError", async () => {
    const tools = await toolsOf(notesApp());
    const count = only(tools.get("get_count"));
    expect(await count.call({ n: 21 }, noCaller)).toMatchObject({ structuredContent: { n: 42 } });
    const bad = await count.call({ n: "lots" }, noCaller);
    expect(bad.isError).toBe(true);
    expect(bad.content).toEqual([{ type: "text", text: expect.stringContaining("400 Bad Request: ") }]);
    expect(JSON.stringify(bad.content)).toContain("'n'");
    const missing = await count.call({}, noCaller);
    expect(JSON.stringify(missing.content)).toContain("missing required argument 'n'");
    const headers = new globalThis.Headers({ authorization: "Bearer good" });
    const invalid = await only(tools.get("post_notes")).call({ title: "" }, { headers });
    expect(invalid.isError).toBe(true);
    expect((invalid.content[0] as { text: string }).text).toStartWith("422 Unprocessable Entity: ");
    expect((invalid.content[0] as { text: string }).text).toContain('"path":"title"');
  });

  test("arguments that cannot make a request are refused before the route runs", async () => {
    const tools = await toolsOf(notesApp());
    const get = only(tools.get("get_notes_by_id"));
    expect(await get.call({ id: "a", nope: 1 }, noCaller)).toEqual({
      content: [{ type: "text", text: "unknown argument 'nope'" }],
      isError: true,
    });
    expect((await get.call({}, noCaller)).content).toEqual([
      { type: "text", text: "missing required argument 'id'" },
    ]);
    expect((await get.call({ id: { x: 1 } }, noCaller)).isError).toBe(true);
    expect((await get.call({ id: "" }, noCaller)).content).toEqual([
      { type: "text", text: "argument 'id' must not be empty" },
    ]);
    expect((await get.call([1], noCaller)).content).toEqual([
      { type: "text", text: "the arguments must be an object" },
    ]);
    // A path value is one segment: a slash in it cannot reach another route.
    expect((await get.call({ id: "a/../../count" }, noCaller)).structuredContent).toMatchObject({
      id: "a/../../count",
    });
  });

  test("a before-middleware that short-circuits decides the result; after-middlewares run", async () => {
    const app = notesApp();
    const built = await app.build();
    const get = only(
      (built.mounted(app.mcpMount)?.routeTools ?? []).find((tool) => tool.name === "get_notes_by_id"),
    );
    expect(await get.call({ id: "blocked" }, noCaller)).toEqual({
      content: [{ type: "text", text: "403 Forbidden: blocked by policy" }],
      isError: true,
    });
    await get.call({ id: "n7" }, noCaller);
    expect((app.globalDependencies.seen as string[]).includes("before n7")).toBe(true);
  });

  test("errors: a 500 hides its detail; an HttpError keeps its status and message", async () => {
    const tools = await toolsOf(notesApp());
    const boom = await only(tools.get("get_boom")).call({}, noCaller);
    expect(boom).toEqual({
      content: [{ type: "text", text: "500 Internal Server Error: Internal Server Error" }],
      isError: true,
    });
    expect(JSON.stringify(boom)).not.toContain("secret");
    expect((await only(tools.get("get_teapot")).call({}, noCaller)).content).toEqual([
      { type: "text", text: "418 I'm a Teapot: no coffee here" },
    ]);
  });

  test("binary bodies: images as image content, others as an embedded resource; text as text; 204 as nothing", async () => {
    const tools = await toolsOf(notesApp());
    expect(await only(tools.get("get_png")).call({}, noCaller)).toEqual({
      content: [
        { type: "image", data: Buffer.from([137, 80, 78, 71]).toString("base64"), mimeType: "image/png" },
      ],
    });
    expect(await only(tools.get("get_blob")).call({}, noCaller)).toEqual({
      content: [
        {
          type: "resource",
          resource: { uri: "http://localhost/blob", mimeType: "application/octet-stream", blob: "AQID" },
        },
      ],
    });
    expect(await only(tools.get("get_text")).call({}, noCaller)).toEqual({
      content: [{ type: "text", text: "just text" }],
    });
    expect(await only(tools.get("delete_notes_by_id")).call({ id: "1" }, noCaller)).toEqual({ content: [] });
    const events = await only(tools.get("get_events")).call({}, noCaller);
    expect(events.isError).toBe(true);
    expect(JSON.stringify(events.content)).toContain("event stream");
  });
});
