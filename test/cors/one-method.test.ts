/**
 * One spelling per job (issue 33): `cors(options)` and `sessions(options)` are the same methods on
 * the app and on any SubRouter (docs/cors.md, docs/cookies-and-sessions.md). Over HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SubRouter, Webfw } from "../../src/index.ts";
import type { ServerHandle } from "../../src/launch/server.ts";

const APP_ORIGIN = "https://site.example";
const API_ORIGIN = "https://app.example";

describe("cors() and sessions() on the app and on sub-routers", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    const app = new Webfw(import.meta.path);
    const api = new SubRouter(import.meta.path, { prefix: "/api" });
    api.cors({ origins: [API_ORIGIN] });
    api.sessions({ secretKey: "k".repeat(32) });
    api.get("/count", (request) => {
      const session = request.session;
      if (session === null) throw new Error("no session");
      const count = Number(session.get("count") ?? 0) + 1;
      session.set("count", count);
      return { count };
    });
    app.includeRouter(api);
    // The same method on a router made by `app.router(prefix)`.
    const made = app.router("/made");
    made.sessions({ secretKey: "m".repeat(32), cookieName: "made" });
    made.get("/who", (request) => {
      request.session?.set("seen", true);
      return "made";
    });
    app.get("/plain", (request) => (request.session === null ? "no session" : "session"));
    server = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false, accessLog: false });
  });
  afterAll(() => server.stop());

  test("routes outside the sub-router are untouched", async () => {
    const plain = await fetch(`${server.url}/plain`, { headers: { origin: API_ORIGIN } });
    expect(await plain.text()).toBe("no session");
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
    expect(plain.headers.get("set-cookie")).toBeNull();
  });

  test("the sub-router's routes get its CORS headers and a session cookie", async () => {
    const first = await fetch(`${server.url}/api/count`, { headers: { origin: API_ORIGIN } });
    expect(first.status).toBe(200);
    expect(first.headers.get("access-control-allow-origin")).toBe(API_ORIGIN);
    const cookie = first.headers.get("set-cookie");
    expect(cookie).toStartWith("session=");
    expect(await first.json()).toEqual({ count: 1 });
    const second = await fetch(`${server.url}/api/count`, {
      headers: { cookie: (cookie as string).split(";")[0] as string },
    });
    expect(await second.json()).toEqual({ count: 2 });
  });

  test("a preflight to the sub-router is answered; a disallowed origin gets no CORS header", async () => {
    const preflight = await fetch(`${server.url}/api/count`, {
      method: "OPTIONS",
      headers: { origin: API_ORIGIN, "access-control-request-method": "PUT" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("PUT");
    expect(preflight.headers.get("access-control-allow-origin")).toBe(API_ORIGIN);
    const other = await fetch(`${server.url}/api/count`, { headers: { origin: "https://evil.example" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("sessions() on a router made by app.router(prefix) uses its own cookie", async () => {
    const answer = await fetch(`${server.url}/made/who`);
    expect(await answer.text()).toBe("made");
    expect(answer.headers.get("set-cookie")).toStartWith("made=");
  });

  test("once per router, on the app as on a sub-router", () => {
    const router = new SubRouter(import.meta.path);
    router.cors();
    expect(() => router.cors()).toThrow("CORS is already configured for this router");
    router.sessions({ secretKey: "s".repeat(32) });
    expect(() => router.sessions({ secretKey: "s".repeat(32) })).toThrow("sessions are already configured");
    const app = new Webfw(import.meta.path).cors();
    expect(() => app.cors()).toThrow("CORS is already configured");
    expect(() => new SubRouter(import.meta.path).cors({ origins: ["not an origin/"] })).toThrow();
  });
});

describe("cors() and sessions() on the app: the same methods, for every path", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    const app = new Webfw(import.meta.path);
    app.cors({ origins: [APP_ORIGIN] });
    app.sessions({ secretKey: "a".repeat(32) });
    app.get("/visit", (request) => {
      request.session?.set("visited", true);
      return "visited";
    });
    const api = new SubRouter(import.meta.path, { prefix: "/api" });
    api.get("/inner", () => "inner");
    app.includeRouter(api);
    server = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false, accessLog: false });
  });
  afterAll(() => server.stop());

  test("the app's routes, its routers' and its 404s get CORS headers; sessions on every route", async () => {
    const visit = await fetch(`${server.url}/visit`, { headers: { origin: APP_ORIGIN } });
    expect(await visit.text()).toBe("visited");
    expect(visit.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    expect(visit.headers.get("set-cookie")).toStartWith("session=");
    const inner = await fetch(`${server.url}/api/inner`, { headers: { origin: APP_ORIGIN } });
    expect(await inner.text()).toBe("inner");
    expect(inner.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    const missing = await fetch(`${server.url}/nowhere`, { headers: { origin: APP_ORIGIN } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    const other = await fetch(`${server.url}/visit`, { headers: { origin: API_ORIGIN } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });
});
