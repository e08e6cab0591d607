import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Webfw } from "../../src/index.ts";
import { CLIENTS, type Client } from "../helpers/clients.ts";

function routingApp(router: "bun" | "ffi" | "js" = "bun"): Webfw {
  const app = new Webfw(import.meta.path, { router });
  app.get("/", () => "root");
  app.get("/users", () => "users");
  app.get("/users/:id", ({ pathParams }) => `user ${pathParams.id}`);
  app.get("/users/:id/posts/:postId", ({ pathParams }) => ({ id: pathParams.id, postId: pathParams.postId }));
  app.get("/files/*extra", ({ pathParams }) => `extra=${pathParams.extra}`);
  app.get("/caf\u00e9", () => "unicode static");
  app.post("/users", () => ["created", 201]);
  app.put("/users/:id", ({ pathParams }) => `put ${pathParams.id}`);
  app.patch("/users/:id", ({ pathParams }) => `patch ${pathParams.id}`);
  app.delete("/users/:id", ({ pathParams }) => `delete ${pathParams.id}`);
  app.options("/opt", () => "custom options");
  app.head("/only-head", () => new Response(null, { headers: { "x-head": "yes" } }));
  app.trace("/trace", () => "trace");
  app.addRoute("patch", "/added", () => "added");
  app.get("/teapot/:name", ({ pathParams }) => `tea ${pathParams.name}`);
  app.get("/teapot/green", () => "static wins");
  return app;
}

for (const engine of ["bun", "js", "ffi"] as const) {
  for (const [kind, makeClient] of CLIENTS) {
    describe(`routing (${engine} engine, ${kind})`, () => {
      let client: Client;
      beforeAll(async () => {
        client = await makeClient(routingApp(engine));
      });
      afterAll(() => client.close());

      const text = async (path: string, init?: RequestInit) => {
        const response = await client.fetch(path, init);
        return [response.status, await response.text()] as const;
      };

      test("static paths", async () => {
        expect(await text("/")).toEqual([200, "root"]);
        expect(await text("/users")).toEqual([200, "users"]);
      });

      test("named parameters, several per path", async () => {
        expect(await text("/users/42")).toEqual([200, "user 42"]);
        const response = await client.fetch("/users/7/posts/99");
        expect(await response.json()).toEqual({ id: "7", postId: "99" });
      });

      test("percent-decoded parameters", async () => {
        expect(await text("/users/a%20b")).toEqual([200, "user a b"]);
        expect(await text("/users/a%2Fb")).toEqual([200, "user a/b"]);
        expect(await text("/users/caf%C3%A9")).toEqual([200, "user café"]);
      });

      test("malformed percent-encoding is a 400", async () => {
        const [status, body] = await text("/users/%E0%A4%A");
        expect(status).toBe(400);
        expect(body).toContain("percent-encoding");
      });

      test("wildcard captures the rest of the path", async () => {
        expect(await text("/files/a/b/c.txt")).toEqual([200, "extra=a/b/c.txt"]);
        expect(await text("/files/one")).toEqual([200, "extra=one"]);
        expect(await text("/files")).toEqual([200, "extra="]);
      });

      test("trailing slash is ignored", async () => {
        expect(await text("/users/")).toEqual([200, "users"]);
        expect(await text("/users/5/")).toEqual([200, "user 5"]);
      });

      test("unicode static segments", async () => {
        expect(await text("/caf%C3%A9")).toEqual([200, "unicode static"]);
      });

      test("static beats parameter", async () => {
        expect(await text("/teapot/green")).toEqual([200, "static wins"]);
        expect(await text("/teapot/black")).toEqual([200, "tea black"]);
      });

      test("every method", async () => {
        expect(await text("/users", { method: "POST" })).toEqual([201, "created"]);
        expect(await text("/users/3", { method: "PUT" })).toEqual([200, "put 3"]);
        expect(await text("/users/3", { method: "PATCH" })).toEqual([200, "patch 3"]);
        expect(await text("/users/3", { method: "DELETE" })).toEqual([200, "delete 3"]);
        expect(await text("/opt", { method: "OPTIONS" })).toEqual([200, "custom options"]);
        expect(await text("/added", { method: "PATCH" })).toEqual([200, "added"]);
        const head = await client.fetch("/only-head", { method: "HEAD" });
        expect(head.status).toBe(200);
        expect(head.headers.get("x-head")).toBe("yes");
      });

      test("unknown path is 404 Not Found, text/plain", async () => {
        const response = await client.fetch("/nope/nothing");
        expect(response.status).toBe(404);
        expect(response.headers.get("content-type")).toBe("text/plain;charset=utf-8");
        expect(await response.text()).toBe("Not Found");
      });

      test("known path, other method: 405 with Allow", async () => {
        const response = await client.fetch("/users", { method: "DELETE" });
        expect(response.status).toBe(405);
        expect(response.headers.get("allow")).toBe("GET, POST, HEAD, OPTIONS");
        expect(await response.text()).toBe("Method Not Allowed");
      });

      test("HEAD on a GET route: headers, no body", async () => {
        const response = await client.fetch("/users/9", { method: "HEAD" });
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("text/plain;charset=utf-8");
        expect(await response.text()).toBe("");
      });

      test("OPTIONS without a handler: 204 with Allow", async () => {
        const response = await client.fetch("/users/9", { method: "OPTIONS" });
        expect(response.status).toBe(204);
        expect(response.headers.get("allow")).toBe("GET, PUT, PATCH, DELETE, HEAD, OPTIONS");
      });

      test("case-sensitive paths", async () => {
        expect((await client.fetch("/USERS")).status).toBe(404);
      });
    });
  }
}

describe("registration errors", () => {
  test("duplicate method and path", () => {
    const app = new Webfw(import.meta.path);
    app.get("/x", () => "a");
    expect(() => app.get("/x", () => "b")).toThrow("GET /x is already registered");
    expect(() => app.get("/x/", () => "b")).toThrow("already registered");
    app.post("/x", () => "post is fine");
  });

  test("wildcard must be last; parameters take a whole segment", () => {
    const app = new Webfw(import.meta.path);
    expect(() => app.get("/a/*rest/b", () => "")).toThrow("last segment");
    expect(() => app.get("/a/x:y", () => "")).toThrow("whole segment");
    expect(() => app.get("/a/:id/:id", () => "")).toThrow("duplicate parameter");
  });

  test("unknown method", () => {
    const app = new Webfw(import.meta.path);
    expect(() => app.addRoute("FETCH" as "GET", "/x", () => "")).toThrow("unknown HTTP method");
  });

  test("unknown router engine", () => {
    expect(() => new Webfw(import.meta.path, { router: "nope" as "bun" })).toThrow("unknown router engine");
  });
});
