// The examples of docs/routing.md, requests.md, responses.md and errors.md, run as written there,
// with the outputs those pages state.
import { describe, expect, spyOn, test } from "bun:test";
import { z } from "zod";
import { HTTP_201_CREATED } from "../../src/http/status-codes.ts";
import {
  ArgError,
  BadRequestError,
  Headers,
  HttpError,
  html,
  json,
  Response,
  statusCodes,
  t,
  Webfw,
} from "../../src/index.ts";
import { logger } from "../../src/log/logger.ts";
import { QueryParams } from "../../src/types.ts";

const post = (body: string, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  body,
  headers,
});

describe("docs/routing.md", () => {
  test("the opening example", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/", () => "hello");
    app.get("/users/:id", ({ pathParams }) => ({ id: pathParams.id }));
    app.post("/users", (request) => [request.json(), 201]);
    app.get("/files/*rest", ({ pathParams }) => `you asked for ${pathParams.rest}`);
    expect(await (await app.request("/")).text()).toBe("hello");
    expect(await (await app.request("/users/7")).json()).toEqual({ id: "7" });
    const created = await app.request("/users", post('{"name":"Ada"}'));
    expect([created.status, await created.json()]).toEqual([201, { name: "Ada" }]);
    expect(await (await app.request("/files/a/b/c.txt")).text()).toBe("you asked for a/b/c.txt");
    expect(await (await app.request("/files/")).text()).toBe("you asked for ");
  });

  test("registration errors", () => {
    const app = new Webfw(import.meta.path);
    app.get("/x", () => "");
    expect(() => app.get("/x/", () => "")).toThrow("route GET /x is already registered");
    expect(() => app.addRoute("FETCH" as "GET", "/y", () => "")).toThrow("unknown HTTP method 'FETCH'");
    expect(() => app.get("/z", "nope" as unknown as () => string)).toThrow(
      "handler of GET /z is not a function",
    );
    expect(() => app.get("/a/:1x", () => "")).toThrow("invalid parameter name ':1x' in route '/a/:1x'");
    expect(() => app.get("/a/*", () => "")).toThrow("invalid parameter name '*'");
    expect(() => app.get("/a/:id/:id", () => "")).toThrow("duplicate parameter 'id'");
    expect(() => app.get("/a/*rest/b", () => "")).toThrow("wildcard '*rest' must be the last segment");
    expect(() => app.get("/a/x:y", () => "")).toThrow("parameters take a whole segment");
    app.addRoute("patch", "/x", () => "lower-case method");
  });

  for (const router of ["bun", "js"] as const) {
    test(`paths, precedence, 404/405/HEAD/OPTIONS (${router})`, async () => {
      const app = new Webfw(import.meta.path, { router });
      app.get("/users", () => "users");
      app.post("/users", () => "created");
      app.get("/users/:id", () => "by id");
      app.get("/users/me", () => "me");
      app.get("/a/:x/b", () => "param");
      app.get("/a/*rest", () => "wildcard");
      app.get("/p/:id", ({ pathParams }) => pathParams.id);
      app.get("/café", () => "unicode");
      const server = await app.start({ port: 0 });
      const get = async (path: string, init?: RequestInit) => {
        const response = await fetch(`${server.url}${path}`, init);
        return [response.status, await response.text(), response.headers] as const;
      };
      try {
        expect((await get("/users/me"))[1]).toBe("me");
        expect((await get("/users/7"))[1]).toBe("by id");
        expect((await get("/a/1/b"))[1]).toBe("param");
        expect((await get("/a/1/c"))[1]).toBe("wildcard");
        expect((await get("/users/"))[1]).toBe("users");
        expect((await get("/p/a%2Fb"))[1]).toBe("a/b");
        expect((await get("/p/caf%C3%A9"))[1]).toBe("café");
        expect((await get("/caf%C3%A9"))[1]).toBe("unicode");
        const [badStatus, badBody] = await get("/p/%E0%A4%A");
        expect([badStatus, badBody]).toEqual([400, "malformed percent-encoding in path parameter 'id'"]);
        expect((await get("/USERS"))[0]).toBe(404);
        const [status404, body404, headers404] = await get("/nope");
        expect([status404, body404, headers404.get("content-type")]).toEqual([
          404,
          "Not Found",
          "text/plain;charset=utf-8",
        ]);
        const [status405, body405, headers405] = await get("/users", { method: "DELETE" });
        expect([status405, body405, headers405.get("allow")]).toEqual([
          405,
          "Method Not Allowed",
          "GET, POST, HEAD, OPTIONS",
        ]);
        const [headStatus, headBody, headHeaders] = await get("/users", { method: "HEAD" });
        expect([headStatus, headBody, headHeaders.get("content-type")]).toEqual([
          200,
          "",
          "text/plain;charset=utf-8",
        ]);
        const [optStatus, optBody, optHeaders] = await get("/users", { method: "OPTIONS" });
        expect([optStatus, optBody, optHeaders.get("allow")]).toEqual([204, "", "GET, POST, HEAD, OPTIONS"]);
      } finally {
        await server.stop(true);
      }
    });
  }

  test("const routes: computed once, at start", async () => {
    let calls = 0;
    const app = new Webfw(import.meta.path);
    app.get("/health", () => ({ status: "ok", call: ++calls }), { const: true });
    const server = await app.start({ port: 0 });
    try {
      expect(calls).toBe(1);
      const first = await fetch(`${server.url}/health`);
      expect(await first.json()).toEqual({ status: "ok", call: 1 });
      const etag = first.headers.get("etag");
      expect(etag).not.toBeNull();
      const again = await fetch(`${server.url}/health`, { headers: { "if-none-match": etag as string } });
      expect(again.status).toBe(304);
      expect(calls).toBe(1);
    } finally {
      await server.stop(true);
    }
  });

  test("start() and the handle", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/", () => "up");
    const server = await app.start({ port: 0, host: "127.0.0.1" });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      expect(server.hostname).toBe("127.0.0.1");
      expect(await (await fetch(server.url)).text()).toBe("up");
    } finally {
      const stopping = server.stop();
      expect(server.stop()).toBe(stopping);
      await stopping;
    }
  });

  test("app.request(): built on first call, resetRequestClient() to see new routes", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/a", ({ ipAddr }) => ({ ipAddr }));
    expect(await (await app.request("/a")).json()).toEqual({ ipAddr: null });
    app.get("/b", () => "b");
    expect((await app.request("/b")).status).toBe(404);
    app.resetRequestClient();
    expect(await (await app.request("/b")).text()).toBe("b");
    const web = await app.request(new globalThis.Request("http://localhost/b"));
    expect(await web.text()).toBe("b");
  });
});

describe("docs/requests.md", () => {
  test("query parameters", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/search", ({ queryParams }) => ({
      q: queryParams.get("q"),
      page: queryParams.get("page", "1"),
      missing: queryParams.get("page"),
      tags: queryParams.getList("tag"),
      none: queryParams.getList("nope") ?? "undefined",
      all: queryParams.toDict(),
      count: Object.keys(queryParams.toDict()).length,
    }));
    const response = await app.request("/search?q=bun&tag=a&tag=b&q=zig&empty=");
    expect(await response.json()).toEqual({
      q: "zig",
      page: "1",
      missing: null,
      tags: ["a", "b"],
      none: "undefined",
      all: { q: ["bun", "zig"], tag: ["a", "b"], empty: [""] },
      count: 3,
    });
    expect(new QueryParams("a=%ZZ&b+c=d+e&flag").toDict()).toEqual({
      a: ["%ZZ"],
      "b c": ["d e"],
      flag: [""],
    });
    expect(new QueryParams({ k: ["1", "2"], j: "3" }).keys()).toEqual(["k", "j"]);
  });

  test("headers", () => {
    const h = new Headers({ "X-Trace": "1" });
    h.set("x-trace", "2");
    h.append("vary", "accept");
    h.append("vary", "origin");
    expect(h.get("X-TRACE")).toBe("2");
    expect(h.get("absent")).toBeNull();
    expect(h.get("absent", "d")).toBe("d");
    expect(h.toDict()).toEqual({ "x-trace": "2", vary: "accept, origin" });
    expect(() => h.set("x", "a\r\nb: c")).toThrow(TypeError);
  });

  test("url fields and empty values", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/u/:x", ({ url }) => ({ path: url.path, query: url.query, scheme: url.scheme }));
    app.get("/e", (r) => ({ body: r.body, cookies: r.cookies, formData: r.formData, args: r.args }));
    expect(await (await app.request("/u/a%20b?x=1")).json()).toEqual({
      path: "/u/a%20b",
      query: "x=1",
      scheme: "http",
    });
    expect(await (await app.request("/e")).json()).toEqual({ body: "", cookies: {}, formData: {}, args: {} });
  });

  test("body: read only for methods that carry one; json() errors", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/json", (request) => request.json());
    app.post("/items", (request) => {
      try {
        const item = request.json<{ name: string }>();
        return [{ created: item.name }, 201];
      } catch (error) {
        if (error instanceof BadRequestError) return ["send JSON please", 400];
        throw error;
      }
    });
    app.post("/raw", (request) => request.json());
    const ok = await app.request("/items", post('{"name":"pen"}'));
    expect([ok.status, await ok.json()]).toEqual([201, { created: "pen" }]);
    const caught = await app.request("/items", post("{nope"));
    expect([caught.status, await caught.text()]).toEqual([400, "send JSON please"]);
    const uncaught = await app.request("/raw", post("{nope"));
    expect(uncaught.status).toBe(400);
    expect(await uncaught.text()).toStartWith("invalid JSON body: ");
    const deep = await app.request("/raw", post("[".repeat(129) + "]".repeat(129)));
    expect(await deep.text()).toBe("JSON nesting deeper than 128 levels");
    expect((await app.request("/raw", post("[".repeat(128) + "]".repeat(128)))).status).toBe(200);
    expect((await app.request("/json")).status).toBe(400);
  });

  test("typed arguments", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/items/:id", ({ args }) => args, {
      args: {
        id: t.int(),
        tags: t.list(t.str()),
        verbose: t.bool().default(false),
        q: t.optional(t.str()),
        ratio: t.float().default(1.5),
      },
    });
    app.get("/n", ({ args }) => args, { args: { n: t.int(), s: t.str().default("d") } });
    const ok = await app.request("/items/5?tags=a&tags=b&verbose=on");
    expect(await ok.text()).toBe('{"id":5,"tags":["a","b"],"verbose":true,"ratio":1.5}');
    const bad = await app.request("/items/abc");
    expect([bad.status, await bad.text()]).toEqual([400, "argument 'id' must be an integer, got 'abc'"]);
    const empty = await app.request("/items/1?verbose");
    expect(empty.status).toBe(400);
    const missing = await app.request("/n");
    expect([missing.status, await missing.text()]).toEqual([400, "missing required argument 'n'"]);
    for (const raw of ["12abc", "1.5", "0x10", "1e3", "", "99999999999999999999"]) {
      expect((await app.request(`/n?n=${encodeURIComponent(raw)}`)).status).toBe(400);
    }
    expect(await (await app.request("/n?n=%207%20&n=8&s=")).json()).toEqual({ n: 8, s: "" });
    expect(t.float().parse(["1e3"], "f")).toBe(1000);
    expect(t.float().parse([".5"], "f")).toBe(0.5);
    expect(() => t.float().parse(["NaN"], "f")).toThrow(ArgError);
    expect(t.list(t.str()).parse(undefined, "l")).toEqual([]);
    expect(t.optional(t.int()).fromJson(null, "o")).toBeUndefined();
    // JSON is taken as typed; text (form fields) converts.
    expect(() => t.int().fromJson("5", "i")).toThrow(ArgError);
    expect(t.int().fromJson("5", "i", true)).toBe(5);
    expect(t.dict().parse(['{"a":1}'], "d")).toEqual({ a: 1 });
    let thrown: unknown = null;
    try {
      t.list(t.int()).fromJson([1, "x"], "tags");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ArgError);
    expect((thrown as ArgError).argument).toBe("tags[1]");
  });

  test("JSON Schema example", () => {
    expect(
      t
        .object({ a: t.str(), b: t.optional(t.int()), c: t.bool().default(true).describe("flag") })
        .jsonSchema(),
    ).toEqual({
      type: "object",
      properties: {
        a: { type: "string" },
        b: { type: "integer" },
        c: { type: "boolean", default: true, description: "flag" },
      },
      required: ["a"],
    });
  });

  test("the body option: zod and t.object", async () => {
    const app = new Webfw(import.meta.path);
    const NewUser = z.object({
      name: z.string().min(1),
      age: z.number().int().nonnegative(),
      tags: z.array(z.string()).default([]),
    });
    app.post("/users", ({ parsedBody }) => [{ created: parsedBody.name, tags: parsedBody.tags }, 201], {
      body: NewUser,
    });
    app.post("/notes", ({ parsedBody }) => parsedBody, {
      body: t.object({ title: t.str(), priority: t.int().default(3), tags: t.list(t.str()) }),
    });
    app.get("/g", ({ parsedBody }) => parsedBody, { body: t.object({ a: t.int() }) });
    const ok = await app.request("/users", post('{"name":"Ada","age":36}'));
    expect([ok.status, await ok.json()]).toEqual([201, { created: "Ada", tags: [] }]);
    const bad = await app.request("/users", post('{"name":"","age":-1,"tags":[1]}'));
    expect(bad.status).toBe(422);
    expect(await bad.json()).toEqual({
      detail: "Unprocessable Entity",
      issues: [
        { path: "name", message: "Too small: expected string to have >=1 characters" },
        { path: "age", message: "Too small: expected number to be >=0" },
        { path: "tags.0", message: "Invalid input: expected string, received number" },
      ],
    });
    expect((await app.request("/users", post('{"name":'))).status).toBe(400);
    const root = await app.request("/users", post("[]"));
    expect((await root.json()).issues[0].path).toBe("");
    const note = await app.request("/notes", post('{"title":"x","priority":5,"extra":1}'));
    expect(await note.json()).toEqual({ title: "x", priority: 5, tags: [] });
    const typedAsText = await app.request("/notes", post('{"title":"x","priority":"5"}'));
    expect(typedAsText.status).toBe(422);
    const badNote = await app.request("/notes", post('{"priority":1.5,"tags":"a"}'));
    expect(badNote.status).toBe(422);
    expect((await badNote.json()).issues.map((issue: { path: string }) => issue.path)).toEqual([
      "title",
      "priority",
      "tags",
    ]);
    const form = await app.request(
      "/notes",
      post("title=hi&priority=2", { "content-type": "application/x-www-form-urlencoded" }),
    );
    expect(await form.json()).toEqual({ title: "hi", priority: 2, tags: [] });
    expect((await app.request("/g")).status).toBe(400);
  });
});

describe("docs/responses.md", () => {
  test("the return-value table", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/text", () => "hello");
    app.get("/user", () => ({ id: 1, name: "Ada" }));
    app.post("/users", () => [{ id: 2 }, 201]);
    app.get("/page", () => html("<h1>hi</h1>"));
    app.delete("/users/:id", () => undefined);
    app.get("/teapot", () => new Response(418, { "x-kind": "teapot" }, "short and stout"));
    app.get("/num", () => 42);
    app.get("/date", () => ({ at: new Date(0) }));
    app.get("/bytes", () => new Uint8Array([1, 2]));
    const check = async (
      path: string,
      init: RequestInit | undefined,
      status: number,
      type: string | null,
      body: string,
    ) => {
      const response = await app.request(path, init);
      expect([response.status, response.headers.get("content-type"), await response.text()]).toEqual([
        status,
        type,
        body,
      ]);
    };
    await check("/text", undefined, 200, "text/plain;charset=utf-8", "hello");
    await check("/user", undefined, 200, "application/json;charset=utf-8", '{"id":1,"name":"Ada"}');
    await check("/users", { method: "POST" }, 201, "application/json;charset=utf-8", '{"id":2}');
    await check("/page", undefined, 200, "text/html; charset=utf-8", "<h1>hi</h1>");
    await check("/users/1", { method: "DELETE" }, 204, null, "");
    await check("/teapot", undefined, 418, "text/plain;charset=utf-8", "short and stout");
    await check("/num", undefined, 200, "application/json;charset=utf-8", "42");
    await check(
      "/date",
      undefined,
      200,
      "application/json;charset=utf-8",
      '{"at":"1970-01-01T00:00:00.000Z"}',
    );
    await check("/bytes", undefined, 200, "application/octet-stream", "\u0001\u0002");
  });

  test("pairs and json()", async () => {
    const app = new Webfw(import.meta.path);
    app.post("/items", () => [{ id: 7 }, 201]);
    app.get("/gone", () => ["it moved", 410]);
    app.get("/made", () => [html("<p>made</p>"), 201]);
    app.get("/none", () => [undefined, 202]);
    app.get("/not-pair", () => ["a", 1000]);
    app.get("/numbers", () => [5, 404]);
    app.get("/forced", () => json([5, 404]));
    app.get("/string", () => json("text"));
    const r = async (path: string, init?: RequestInit) => {
      const response = await app.request(path, init);
      return [response.status, response.headers.get("content-type"), await response.text()];
    };
    expect(await r("/items", { method: "POST" })).toEqual([
      201,
      "application/json;charset=utf-8",
      '{"id":7}',
    ]);
    expect(await r("/gone")).toEqual([410, "text/plain;charset=utf-8", "it moved"]);
    expect(await r("/made")).toEqual([201, "text/html; charset=utf-8", "<p>made</p>"]);
    expect((await r("/none")).filter((_, i) => i !== 1)).toEqual([202, ""]);
    expect(await r("/not-pair")).toEqual([200, "application/json;charset=utf-8", '["a",1000]']);
    expect(await r("/numbers")).toEqual([404, "application/json;charset=utf-8", "5"]);
    expect(await r("/forced")).toEqual([200, "application/json;charset=utf-8", "[5,404]"]);
    expect(await r("/string")).toEqual([200, "application/json;charset=utf-8", '"text"']);
  });

  test("dictionary responses", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/d", () => ({ statusCode: 201, description: "created", headers: { "x-id": "7" } }));
    app.get("/j", () => ({ statusCode: 200, description: '{"k":1}', type: "json" }));
    app.get("/b", () => ({ statusCode: 200, description: new Uint8Array([1, 2]), type: "binary" }));
    app.get("/u", () => ({ statusCode: 200, description: "x", type: "weird" }));
    app.get("/h", () => ({ statusCode: 200, description: "x", type: "HTML" }));
    app.get("/o", () => ({ statusCode: 200, description: "x", extra: true }));
    const d = await app.request("/d");
    expect([d.status, d.headers.get("x-id"), d.headers.get("content-type"), await d.text()]).toEqual([
      201,
      "7",
      "text/plain;charset=utf-8",
      "created",
    ]);
    expect((await app.request("/j")).headers.get("content-type")).toBe("application/json;charset=utf-8");
    expect((await app.request("/b")).headers.get("content-type")).toBe("application/octet-stream");
    expect((await app.request("/u")).headers.get("content-type")).toBe("text/plain;charset=utf-8");
    expect((await app.request("/h")).headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await (await app.request("/o")).json()).toEqual({
      statusCode: 200,
      description: "x",
      extra: true,
    });
  });

  test("the Response class and cookies", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/download", () => {
      const response = new Response(
        200,
        { "content-type": "application/octet-stream" },
        new Uint8Array([1, 2, 3]),
      );
      response.headers.set("cache-control", "no-store");
      return response;
    });
    app.post("/login", () =>
      new Response(303, new Headers({ location: "/home" })).setCookie("sid", "abc123", {
        httpOnly: true,
        secure: true,
        sameSite: "Lax",
        maxAge: 3600,
      }),
    );
    app.post("/logout", () => new Response(200, {}, "bye").deleteCookie("sid"));
    const download = await app.request("/download");
    expect(download.headers.get("cache-control")).toBe("no-store");
    expect([...new Uint8Array(await download.arrayBuffer())]).toEqual([1, 2, 3]);
    const login = await app.request("/login", { method: "POST" });
    expect(login.status).toBe(303);
    expect(login.headers.get("location")).toBe("/home");
    expect(login.headers.getSetCookie()).toEqual([
      "sid=abc123; Max-Age=3600; Path=/; Secure; HttpOnly; SameSite=Lax",
    ]);
    const logout = await app.request("/logout", { method: "POST" });
    expect(logout.headers.getSetCookie()).toEqual([
      "sid=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/",
    ]);
    expect(() => new Response().setCookie("a", "b", { sameSite: "None" })).toThrow(TypeError);
    expect(new Response().setCookie("__Host-id", "1").headers.getAll("set-cookie")).toEqual([
      "__Host-id=1; Path=/; Secure",
    ]);
  });

  test("status codes", async () => {
    const app = new Webfw(import.meta.path);
    app.post("/x", () => ["made", HTTP_201_CREATED]);
    app.get("/y", () => ["nothing here", statusCodes.HTTP_404_NOT_FOUND]);
    expect((await app.request("/x", { method: "POST" })).status).toBe(201);
    expect((await app.request("/y")).status).toBe(404);
  });

  test("async generators stream", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/numbers", async function* () {
      for (let i = 0; i < 3; i++) yield { i };
    });
    expect(await (await app.request("/numbers")).text()).toBe('{"i":0}\n{"i":1}\n{"i":2}\n');
  });
});

describe("docs/errors.md", () => {
  test("HttpError and BadRequestError", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/users/:id", async ({ pathParams }) => {
      throw new HttpError(404, `no user ${pathParams.id}`);
    });
    app.post("/orders", ({ headers }) => {
      if (headers.get("idempotency-key") === null)
        throw new BadRequestError("Idempotency-Key header required");
      throw new HttpError(429, "slow down", { "retry-after": "30" });
    });
    app.get("/teapot", () => {
      throw new HttpError(418);
    });
    const missing = await app.request("/users/3");
    expect([missing.status, await missing.text()]).toEqual([404, "no user 3"]);
    const bad = await app.request("/orders", { method: "POST" });
    expect([bad.status, await bad.text()]).toEqual([400, "Idempotency-Key header required"]);
    const slow = await app.request("/orders", { method: "POST", headers: { "idempotency-key": "k" } });
    expect([slow.status, slow.headers.get("retry-after"), await slow.text()]).toEqual([
      429,
      "30",
      "slow down",
    ]);
    expect(await (await app.request("/teapot")).text()).toBe("HTTP 418");
    expect(new BadRequestError().message).toBe("Bad Request");
  });

  test("app.exception(), as in the example", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/boom", () => {
      throw new Error("secret");
    });
    app.get("/n", ({ args }) => args, { args: { n: t.int() } });
    app.post("/v", ({ parsedBody }) => parsedBody, { body: t.object({ a: t.int() }) });
    const errors = spyOn(console, "error").mockImplementation(() => {});
    app.exception((error, request) => {
      if (error instanceof HttpError) {
        return new Response(
          error.status,
          { ...error.headers, "content-type": "application/json" },
          JSON.stringify({ error: error.message }),
        );
      }
      if (error instanceof ArgError) return [{ error: error.message, argument: error.argument }, 400];
      console.error(`${request.method} ${request.url.path} failed:`, error);
      return [{ error: "internal error" }, 500];
    });
    try {
      const wrongMethod = await app.request("/boom", { method: "PUT" });
      expect([wrongMethod.status, wrongMethod.headers.get("allow"), await wrongMethod.json()]).toEqual([
        405,
        "GET, HEAD, OPTIONS",
        { error: "Method Not Allowed" },
      ]);
      const notFound = await app.request("/nope");
      expect([notFound.status, await notFound.json()]).toEqual([404, { error: "Not Found" }]);
      const arg = await app.request("/n?n=x");
      expect([arg.status, await arg.json()]).toEqual([
        400,
        { error: "argument 'n' must be an integer, got 'x'", argument: "n" },
      ]);
      const boom = await app.request("/boom");
      expect([boom.status, await boom.json()]).toEqual([500, { error: "internal error" }]);
      expect(errors).toHaveBeenCalledTimes(1);
      const invalid = await app.request("/v", post('{"a":"x"}'));
      expect(invalid.status).toBe(422);
      expect((await invalid.json()).detail).toBe("Unprocessable Entity");
    } finally {
      errors.mockRestore();
    }
  });

  test("a plain return value from the exception handler is a 200", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/x", () => {
      throw new Error("e");
    });
    app.exception(() => ({ oops: true }));
    expect((await app.request("/x")).status).toBe(200);
  });

  test("500 is logged on one line; dev mode shows the stack", async () => {
    const lines: string[] = [];
    logger.setSink((line) => lines.push(line));
    try {
      for (const dev of [false, true]) {
        const app = new Webfw(import.meta.path, { dev });
        app.get("/boom", () => {
          throw new Error("secret database password");
        });
        const response = await app.request("/boom");
        const body = await response.text();
        if (dev) expect(body).toStartWith("Internal Server Error\n\nError: secret database password");
        else expect(body).toBe("Internal Server Error");
      }
    } finally {
      logger.setSink((line) => process.stderr.write(`${line}\n`));
    }
    expect(lines.length).toBe(2);
    // The request's id (docs/request-ids.md) sits between the URL and the error.
    expect(lines[0]).toMatch(
      /level=ERROR msg="unhandled error in handler" method=GET url=http:\/\/localhost\/boom request_id=[0-9a-f-]{36} error="Error: secret database password\\n/,
    );
  });
});
