/**
 * Issue 31: a SubRouter's own refusals pass through its CORS pair, so that a browser page reads
 * them instead of a CORS error: the 429 of its rate limit (and the 503 of a store that is down,
 * and an HttpError from a key function) like its 401 and 422 already did. Preflights are not
 * counted and still answered once the limit is reached. The router's other middlewares do not
 * run for a refusal.
 */
import { afterEach, describe, expect, test } from "bun:test";
import {
  AuthenticationHandler,
  BearerGetter,
  HttpError,
  Identity,
  type Request,
  type ServerHandle,
  SubRouter,
  t,
  Webfw,
} from "../../src/index.ts";
import { logger, stderrSink } from "../../src/log/logger.ts";

const ORIGIN = "https://app.example";
const servers: ServerHandle[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop(true);
  logger.setSink(stderrSink);
});

class Tokens extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    return this.tokenGetter.getToken(request) === "good" ? new Identity({ claims: { sub: "u" } }) : null;
  }
}

async function serve(app: Webfw): Promise<ServerHandle> {
  const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
  servers.push(server);
  return server;
}

function apiWithLimit(limit: number): { app: Webfw } {
  const app = new Webfw(import.meta.path);
  const api = new SubRouter(import.meta.path, { prefix: "/api" });
  api.cors({ origins: [ORIGIN], exposeHeaders: ["RateLimit", "Retry-After"] });
  api.configureAuthentication(new Tokens(new BearerGetter()));
  api.rateLimit({ limit, windowMs: 60_000 });
  // A router middleware that is not CORS: it belongs to the routes, which a refusal never reaches.
  api.afterRequest((response) => {
    response.headers.set("x-router-after", "ran");
  });
  api.get("/items", () => ["a"]);
  api.post("/items", (request) => request.body, { body: t.object({ n: t.int() }) });
  api.get("/private", () => "secret", { authRequired: true });
  api.options("/custom", () => "custom options");
  app.includeRouter(api);
  return { app };
}

const from = (headers: Record<string, string> = {}) => ({ headers: { origin: ORIGIN, ...headers } });

describe("a SubRouter's refusals through its CORS pair", () => {
  test("401, 422 and the 429 of its rate limit all carry Access-Control-Allow-Origin", async () => {
    const { app } = apiWithLimit(3);
    const server = await serve(app);
    const unauthorized = await fetch(`${server.url}/api/private`, from());
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    const invalid = await fetch(`${server.url}/api/items`, {
      method: "POST",
      body: JSON.stringify({ n: "abc" }),
      ...from({ "content-type": "application/json" }),
    });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    const ok = await fetch(`${server.url}/api/items`, from());
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(ok.headers.get("x-router-after")).toBe("ran");

    const refused = await fetch(`${server.url}/api/items`, from());
    expect(refused.status).toBe(429);
    expect(refused.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(refused.headers.get("access-control-expose-headers")).toBe("RateLimit, Retry-After");
    expect(refused.headers.get("vary")).toContain("Origin");
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(refused.headers.get("ratelimit")).toStartWith('"router /api";r=0;');
    expect(await refused.text()).toStartWith("More than 3 requests in 60 s");
    // The router's other middlewares do not run for a refusal.
    expect(refused.headers.get("x-router-after")).toBeNull();
    // An origin the router does not allow: the 429 without CORS headers, as its 200s would be.
    const stranger = await fetch(`${server.url}/api/items`, { headers: { origin: "https://evil.example" } });
    expect(stranger.status).toBe(429);
    expect(stranger.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("with the limit reached, preflights are still answered (not counted); a plain OPTIONS is counted", async () => {
    const { app } = apiWithLimit(1);
    const server = await serve(app);
    expect((await fetch(`${server.url}/api/items`, from())).status).toBe(200);
    expect((await fetch(`${server.url}/api/items`, from())).status).toBe(429);
    const preflight = (path: string) =>
      fetch(`${server.url}${path}`, {
        method: "OPTIONS",
        ...from({
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type",
        }),
      });
    // A path without an OPTIONS route, and one whose own OPTIONS route is under the limit.
    for (const path of ["/api/items", "/api/custom", "/api/custom"]) {
      const answer = await preflight(path);
      expect(answer.status).toBe(204);
      expect(answer.headers.get("access-control-allow-origin")).toBe(ORIGIN);
      expect(answer.headers.get("access-control-allow-methods")).toContain("POST");
      expect(answer.headers.get("ratelimit")).toBeNull();
    }
    // Not a preflight (no Access-Control-Request-Method): the OPTIONS route, counted, so refused.
    const plain = await fetch(`${server.url}/api/custom`, { method: "OPTIONS", ...from() });
    expect(plain.status).toBe(429);
    expect(plain.headers.get("access-control-allow-origin")).toBe(ORIGIN);
  });

  test("preflights do not use up the limit", async () => {
    const { app } = apiWithLimit(2);
    const server = await serve(app);
    for (let i = 0; i < 5; i++) {
      const answer = await fetch(`${server.url}/api/custom`, {
        method: "OPTIONS",
        ...from({ "access-control-request-method": "PUT" }),
      });
      expect(answer.status).toBe(204);
    }
    const first = await fetch(`${server.url}/api/items`, from());
    expect(first.headers.get("ratelimit")).toStartWith('"router /api";r=1;');
  });

  test("a key function's HttpError and the 503 of a store that is down carry CORS too", async () => {
    logger.setSink(() => {});
    const app = new Webfw(import.meta.path);
    const api = new SubRouter(import.meta.path, { prefix: "/api" });
    api.cors({ origins: [ORIGIN] });
    api.rateLimit({
      limit: 5,
      windowMs: 60_000,
      key: (request) => {
        const key = request.headers.get("x-api-key");
        if (key === null) throw new HttpError(401, "send X-Api-Key");
        return key;
      },
    });
    api.get("/keyed", () => "ok");
    api.get("/down", () => "ok", {
      rateLimit: {
        onStoreError: "deny",
        store: {
          hit: () => {
            throw new Error("store down");
          },
        },
      },
    });
    app.includeRouter(api);
    const server = await serve(app);
    const missing = await fetch(`${server.url}/api/keyed`, from());
    expect(missing.status).toBe(401);
    expect(missing.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    const down = await fetch(`${server.url}/api/down`, from({ "x-api-key": "k" }));
    expect(down.status).toBe(503);
    expect(down.headers.get("access-control-allow-origin")).toBe(ORIGIN);
  });

  test("nested routers: the 429 of the inner one goes through both CORS pairs' after halves", async () => {
    const app = new Webfw(import.meta.path);
    const outer = new SubRouter(import.meta.path, { prefix: "/v1" });
    outer.cors({ origins: [ORIGIN] });
    const inner = new SubRouter(import.meta.path, { prefix: "/admin" });
    inner.cors({ origins: [ORIGIN], credentials: true });
    inner.rateLimit({ limit: 1, windowMs: 60_000 });
    inner.get("/x", () => "x");
    outer.includeRouter(inner);
    app.includeRouter(outer);
    const server = await serve(app);
    expect((await fetch(`${server.url}/v1/admin/x`, from())).status).toBe(200);
    const refused = await fetch(`${server.url}/v1/admin/x`, from());
    expect(refused.status).toBe(429);
    expect(refused.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(refused.headers.get("access-control-allow-credentials")).toBe("true");
  });
});

describe("examples/rate-limit.ts", () => {
  test("its API's 429 carries CORS for the page's origin; its sliding login limit says when to retry", async () => {
    const { default: app } = await import("../../examples/rate-limit.ts");
    const server = await serve(app);
    const item = () => fetch(`${server.url}/api/items`, from({ "x-api-key": "page" }));
    for (let i = 0; i < 5; i++) expect((await item()).status).toBe(200);
    const refused = await item();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(refused.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(refused.headers.get("access-control-expose-headers")).toBe(
      "RateLimit, RateLimit-Policy, Retry-After",
    );
    const login = () => fetch(`${server.url}/login`, { method: "POST" });
    for (let i = 0; i < 3; i++) expect((await login()).status).toBe(200);
    const tooMany = await login();
    expect(tooMany.status).toBe(429);
    // Sliding: one more fits once a third of the 3 has faded in the next minute: 60 s + 20 s.
    expect(Number(tooMany.headers.get("retry-after"))).toBeGreaterThanOrEqual(79);
    expect(Number(tooMany.headers.get("retry-after"))).toBeLessThanOrEqual(80);
  });
});
