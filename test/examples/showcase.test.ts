import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import hello from "../../examples/hello.ts";
import showcase from "../../examples/showcase.ts";
import type { ServerHandle } from "../../src/index.ts";

describe("examples/hello.ts", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await hello.start({ port: 0 });
  });
  afterAll(() => server.stop());

  test("GET / and a param route", async () => {
    expect(await (await fetch(`${server.url}/`)).text()).toBe("Hello, world!");
    expect(await (await fetch(`${server.url}/hello/bun`)).json()).toEqual({ message: "Hello, bun!" });
  });
});

describe("examples/showcase.ts (auth, DI and middlewares together)", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await showcase.start({ port: 0 });
  });
  afterAll(() => server.stop());
  const get = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);

  test("home page and global headers", async () => {
    const response = await get("/");
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("x-powered-by")).toBe("webfw");
    expect(response.headers.get("server-timing")).toStartWith("app;dur=");
    expect(await response.text()).toContain("webfw showcase");
  });

  test("a redirect: 301 to /, no body", async () => {
    const moved = await get("/index.html", { redirect: "manual" });
    expect(moved.status).toBe(301);
    expect(moved.headers.get("location")).toBe("/");
    expect(moved.headers.get("content-type")).toBeNull();
    expect(await moved.text()).toBe("");
  });

  test("typed arguments", async () => {
    expect(await (await get("/add?a=2&b=40")).json()).toEqual({ sum: 42 });
    expect((await get("/add?a=two")).status).toBe(400);
  });

  test("todos through injected state", async () => {
    const created = await get("/todos", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "write docs" }),
    });
    expect(created.status).toBe(201);
    const todo = await created.json();
    expect(todo).toMatchObject({ title: "write docs", done: false });
    expect(await (await get("/todos")).json()).toContainEqual(todo);
    expect((await get(`/todos/${todo.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await get(`/todos/${todo.id}`, { method: "DELETE" })).status).toBe(404);
  });

  test("authentication", async () => {
    const anonymous = await get("/me");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("x-powered-by")).toBe("webfw");
    const me = await get("/me", { headers: { authorization: "Bearer secret-token" } });
    expect(await me.json()).toEqual({ user: "ada", role: "admin" });
  });

  test("const route and sub-router", async () => {
    const first = await (await get("/health")).json();
    const second = await (await get("/health")).json();
    expect(first).toEqual(second);
    expect(await (await get("/api/v1/version")).json()).toEqual({ version: "2026.11" });
  });
});
