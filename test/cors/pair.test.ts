import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { allowCors, corsMiddlewares } from "../../src/entries/cors.ts";
import { sessionMiddlewares } from "../../src/entries/sessions.ts";
import { SubRouter, Webfw } from "../../src/index.ts";
import type { ServerHandle } from "../../src/launch/server.ts";
import { installPair } from "../../src/router/middleware.ts";

// CORS and sessions are before/after pairs made without an app: any router installs them.
describe("CORS and sessions as before/after pairs on a sub-router", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    const app = new Webfw(import.meta.path);
    const api = new SubRouter(import.meta.path, { prefix: "/api" });
    allowCors(api, { origins: ["https://app.example"] });
    installPair(api, sessionMiddlewares({ secretKey: "k".repeat(32) }));
    api.get("/count", (request) => {
      const session = request.session;
      if (session === null) throw new Error("no session");
      const count = Number(session.get("count") ?? 0) + 1;
      session.set("count", count);
      return { count };
    });
    app.includeRouter(api);
    app.get("/plain", () => "plain");
    server = await app.start({ port: 0, handleSignals: false, accessLog: false });
  });
  afterAll(() => server.stop());

  test("the sub-router's routes get CORS headers and a session cookie", async () => {
    const first = await fetch(`${server.url}/api/count`, { headers: { origin: "https://app.example" } });
    expect(first.status).toBe(200);
    expect(first.headers.get("access-control-allow-origin")).toBe("https://app.example");
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
      headers: { origin: "https://app.example", "access-control-request-method": "PUT" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("PUT");
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example");
    const other = await fetch(`${server.url}/api/count`, { headers: { origin: "https://evil.example" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("routes outside the sub-router are untouched", async () => {
    const plain = await fetch(`${server.url}/plain`, { headers: { origin: "https://app.example" } });
    expect(await plain.text()).toBe("plain");
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
    expect(plain.headers.get("set-cookie")).toBeNull();
  });

  test("a pair is a plain value; one router cannot configure CORS twice", () => {
    const pair = corsMiddlewares({ origins: "*" });
    expect(typeof pair.before).toBe("function");
    expect(typeof pair.after).toBe("function");
    const router = new SubRouter(import.meta.path);
    allowCors(router);
    expect(() => allowCors(router)).toThrow("CORS is already configured");
    expect(() => corsMiddlewares({ origins: ["not an origin/"] })).toThrow();
  });
});
