/**
 * Rate limiting with the in-memory store over real HTTP: exact counts at the
 * window edge, concurrent requests, the IETF headers, per-router and per-route
 * declarations, keys (address, X-Forwarded-For behind the app's trustProxy, identity, function,
 * a function that throws), and the 429 through the app-global layers.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { MemoryStore } from "../../src/entries/rate-limit.ts";
import {
  AuthenticationHandler,
  BearerGetter,
  HttpError,
  Identity,
  type Request,
  type ServerHandle,
  SubRouter,
  Webfw,
} from "../../src/index.ts";
import { logger, stderrSink } from "../../src/log/logger.ts";

const servers: ServerHandle[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop(true);
  logger.setSink(stderrSink);
});

async function serve(app: Webfw): Promise<ServerHandle> {
  const server = await app.start({ port: 0, accessLog: false });
  servers.push(server);
  return server;
}

function remaining(response: Response): number {
  return Number(/;r=(\d+)/.exec(response.headers.get("ratelimit") ?? "")?.[1] ?? Number.NaN);
}

describe("app.rateLimit with the memory store", () => {
  test("exact counts: `limit` pass with RateLimit counting down, the next is 429 until the window ends", async () => {
    const app = new Webfw(import.meta.path);
    app.rateLimit({ limit: 3, windowMs: 1_500 });
    app.get("/", () => "ok");
    const server = await serve(app);
    const started = performance.now();
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${server.url}/`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe("ok");
      expect(response.headers.get("ratelimit-policy")).toBe('"app";q=3;w=2');
      expect(response.headers.get("ratelimit")).toMatch(/^"app";r=\d;t=[12]$/);
      seen.push(remaining(response));
    }
    expect(seen).toEqual([2, 1, 0]);
    const refused = await fetch(`${server.url}/`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(2);
    expect(refused.headers.get("ratelimit-policy")).toBe('"app";q=3;w=2');
    expect(remaining(refused)).toBe(0);
    expect(await refused.text()).toBe(
      "More than 3 requests in 2 s; retry in 2 s.".replace(
        "retry in 2",
        `retry in ${refused.headers.get("retry-after")}`,
      ),
    );
    // Still inside the window (if this machine was fast enough to get here in time): refused again.
    if (performance.now() - started < 1_300) expect((await fetch(`${server.url}/`)).status).toBe(429);
    // After the window: a new one, counted from 1.
    await Bun.sleep(Math.max(0, 1_600 - (performance.now() - started)));
    const fresh = await fetch(`${server.url}/`);
    expect(fresh.status).toBe(200);
    expect(remaining(fresh)).toBe(2);
  });

  test("concurrent requests: exactly `limit` of them pass", async () => {
    const app = new Webfw(import.meta.path);
    app.rateLimit({ limit: 20, windowMs: 60_000 });
    app.get("/", async () => {
      await Bun.sleep(5);
      return "ok";
    });
    const server = await serve(app);
    const statuses = await Promise.all(
      Array.from({ length: 50 }, () => fetch(`${server.url}/`).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200).length).toBe(20);
    expect(statuses.filter((s) => s === 429).length).toBe(30);
  });

  test("routers and routes: the innermost declaration wins, its own counters; false turns a limit off", async () => {
    const app = new Webfw(import.meta.path);
    app.rateLimit({ limit: 2, windowMs: 60_000 });
    app.get("/a", () => "a");
    app.get("/b", () => "b");
    app.get("/free", () => "free", { rateLimit: false });
    app.get("/strict", () => "strict", { rateLimit: { limit: 1 } });
    const admin = new SubRouter(import.meta.path, { prefix: "/admin" });
    admin.rateLimit({ limit: 4, name: "admin" });
    admin.get("/x", () => "x");
    admin.get("/open", () => "open", { rateLimit: false });
    app.includeRouter(admin);
    const server = await serve(app);
    const get = (path: string) => fetch(`${server.url}${path}`);
    // /a and /b share the app's policy: 2 in all.
    expect((await get("/a")).status).toBe(200);
    expect((await get("/b")).status).toBe(200);
    expect((await get("/a")).status).toBe(429);
    // No limit: no headers, never refused.
    for (let i = 0; i < 5; i++) {
      const free = await get("/free");
      expect(free.status).toBe(200);
      expect(free.headers.get("ratelimit")).toBeNull();
    }
    // The route's own policy (window inherited from the app's), named after the route.
    const strict = await get("/strict");
    expect(strict.headers.get("ratelimit-policy")).toBe('"GET /strict";q=1;w=60');
    expect((await get("/strict")).status).toBe(429);
    for (let i = 0; i < 4; i++) expect((await get("/admin/x")).status).toBe(200);
    const fifth = await get("/admin/x");
    expect(fifth.status).toBe(429);
    expect(fifth.headers.get("ratelimit-policy")).toBe('"admin";q=4;w=60');
    expect((await get("/admin/open")).status).toBe(200);
  });

  test("a const route with a limit is counted (not served from Bun's static table)", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/c", () => "constant", { const: true, rateLimit: { limit: 1, windowMs: 60_000 } });
    const server = await serve(app);
    expect(await (await fetch(`${server.url}/c`)).text()).toBe("constant");
    expect((await fetch(`${server.url}/c`)).status).toBe(429);
  });

  test("the 429 goes through the app-global middlewares and headers, as problem details with the request id", async () => {
    const app = new Webfw(import.meta.path, { errors: "problem", requestId: true });
    app.cors({ origins: ["https://ui.example"] });
    app.setResponseHeader("x-app", "1");
    app.rateLimit({ limit: 1, windowMs: 60_000 });
    app.post("/p", (request) => request.text());
    const server = await serve(app);
    const init = { method: "POST", body: "x", headers: { origin: "https://ui.example" } };
    expect((await fetch(`${server.url}/p`, init)).status).toBe(200);
    const refused = await fetch(`${server.url}/p`, init);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("access-control-allow-origin")).toBe("https://ui.example");
    expect(refused.headers.get("x-app")).toBe("1");
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    const problem = (await refused.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({ title: "Too Many Requests", status: 429, instance: "/p" });
    expect(problem.requestId).toBe(refused.headers.get("x-request-id") as string);
  });
});

describe("keys", () => {
  test("X-Forwarded-For is ignored unless the socket is a trusted proxy", async () => {
    const app = new Webfw(import.meta.path);
    app.rateLimit({ limit: 1, windowMs: 60_000 });
    app.get("/", () => "ok");
    const server = await serve(app);
    expect((await fetch(`${server.url}/`, { headers: { "x-forwarded-for": "1.1.1.1" } })).status).toBe(200);
    // A client cannot escape by forging another address: it is still 127.0.0.1.
    expect((await fetch(`${server.url}/`, { headers: { "x-forwarded-for": "2.2.2.2" } })).status).toBe(429);
  });

  test("trusted proxies: the nearest untrusted address of X-Forwarded-For is the client", async () => {
    const app = new Webfw(import.meta.path, { trustProxy: ["127.0.0.0/8", "10.0.0.0/8"] });
    app.rateLimit({ limit: 1, windowMs: 60_000 });
    app.get("/", () => "ok");
    const server = await serve(app);
    const get = (xff?: string) =>
      fetch(`${server.url}/`, { headers: xff === undefined ? {} : { "x-forwarded-for": xff } }).then(
        (r) => r.status,
      );
    expect(await get("203.0.113.7")).toBe(200);
    expect(await get("203.0.113.8")).toBe(200);
    expect(await get("203.0.113.7")).toBe(429);
    // A forged entry left of the real client is not believed: the client is 203.0.113.8 (via 10.1.1.1).
    expect(await get("6.6.6.6, 203.0.113.8, 10.1.1.1")).toBe(429);
    expect(await get("6.6.6.6, 203.0.113.9, 10.1.1.1")).toBe(200);
    // Malformed entries: nothing to their left is believed; the client is the last good hop.
    expect(await get("garbage, 198.51.100.1")).toBe(200);
    expect(await get("198.51.100.1, not-an-ip")).toBe(200); // the socket, 127.0.0.1, first time
    expect(await get("")).toBe(429); // 127.0.0.1 again
  });

  test("bad trustProxy entries fail at once; the old rateLimit trustProxy says where it went", async () => {
    expect(() => new Webfw(import.meta.path, { trustProxy: ["10.0.0.0/33"] })).toThrow(/bad prefix length/);
    const app = new Webfw(import.meta.path);
    // The option moved to the app (CHANGELOG): JavaScript callers get a TypeError naming the new spelling.
    expect(() => app.rateLimit({ limit: 1, windowMs: 1_000, trustProxy: ["10.0.0.0/8"] } as never)).toThrow(
      /trustProxy is now an app option/,
    );
    app.get("/", () => "ok", { rateLimit: { limit: 1, windowMs: 1_000, trustProxy: [] } as never });
    await expect(app.start({ port: 0 })).rejects.toThrow(/trustProxy is now an app option/);
    const other = new Webfw(import.meta.path);
    other.get("/", () => "ok", { rateLimit: { limit: 0, windowMs: 1_000 } });
    await expect(other.start({ port: 0 })).rejects.toThrow(/limit must be a positive integer/);
    const noWindow = new Webfw(import.meta.path);
    noWindow.get("/", () => "ok", { rateLimit: { limit: 1 } });
    await expect(noWindow.start({ port: 0 })).rejects.toThrow(/windowMs/);
  });

  test("identity: each identity has its own count; requests without one are counted by address", async () => {
    class Tokens extends AuthenticationHandler {
      authenticate(request: Request): Identity | null {
        const token = this.tokenGetter.getToken(request);
        return token?.startsWith("user-") ? new Identity({ claims: { sub: token } }) : null;
      }
    }
    const app = new Webfw(import.meta.path);
    app.configureAuthentication(new Tokens(new BearerGetter()));
    app.rateLimit({ limit: 2, windowMs: 60_000, key: "identity" });
    app.get("/", ({ identity }) => identity?.claims.sub ?? "anonymous");
    const server = await serve(app);
    const get = (token?: string) =>
      fetch(`${server.url}/`, { headers: token ? { authorization: `Bearer ${token}` } : {} }).then(
        (r) => r.status,
      );
    expect([await get("user-a"), await get("user-a"), await get("user-a")]).toEqual([200, 200, 429]);
    expect([await get("user-b"), await get("user-b")]).toEqual([200, 200]);
    expect([await get(), await get(), await get("bogus"), await get()]).toEqual([200, 200, 429, 429]);
  });

  test("a key function: its own keys, null means unlimited, an HttpError is its answer, anything thrown is a logged 500", async () => {
    const lines: string[] = [];
    logger.setSink((line) => {
      lines.push(line);
    });
    const app = new Webfw(import.meta.path, { requestId: true });
    app.rateLimit({
      limit: 1,
      windowMs: 60_000,
      key: async (request) => {
        const key = request.headers.get("x-api-key");
        if (key === "boom") throw new Error("key store down: secret-dsn");
        if (key === "number") return 42 as unknown as string;
        if (key === null) throw new HttpError(401, "send X-Api-Key");
        return key === "admin" ? null : key;
      },
    });
    let handled = 0;
    app.get("/", () => ++handled);
    const server = await serve(app);
    const get = (key?: string) => fetch(`${server.url}/`, { headers: key ? { "x-api-key": key } : {} });
    expect([(await get("k1")).status, (await get("k1")).status, (await get("k2")).status]).toEqual([
      200, 429, 200,
    ]);
    for (let i = 0; i < 3; i++) {
      const admin = await get("admin");
      expect(admin.status).toBe(200);
      expect(admin.headers.get("ratelimit")).toBeNull();
    }
    const missing = await get();
    expect(missing.status).toBe(401);
    expect(await missing.text()).toBe("send X-Api-Key");
    const before = handled;
    const boom = await get("boom");
    expect(boom.status).toBe(500);
    expect(await boom.text()).toBe("Internal Server Error");
    const wrongType = await get("number");
    expect(wrongType.status).toBe(500);
    expect(handled).toBe(before); // the handler never ran for them
    const id = boom.headers.get("x-request-id") as string;
    expect(
      lines.some(
        (line) =>
          line.includes("level=ERROR") && line.includes(`request_id=${id}`) && line.includes("secret-dsn"),
      ),
    ).toBe(true);
    expect((await get("k3")).status).toBe(200); // the server is fine
  });

  test("a store that throws: fail open (default) or 503 (onStoreError: deny)", async () => {
    const broken = {
      hit(): never {
        throw new Error("store down");
      },
    };
    const app = new Webfw(import.meta.path);
    app.get("/open", () => "served", { rateLimit: { limit: 1, windowMs: 1_000, store: broken } });
    app.get("/closed", () => "served", {
      rateLimit: { limit: 1, windowMs: 1_000, store: broken, onStoreError: "deny" },
    });
    const server = await serve(app);
    for (let i = 0; i < 3; i++) {
      const open = await fetch(`${server.url}/open`);
      expect(open.status).toBe(200);
      expect(open.headers.get("ratelimit")).toBeNull();
    }
    const closed = await fetch(`${server.url}/closed`);
    expect(closed.status).toBe(503);
    expect(closed.headers.get("retry-after")).toBe("1");
  });
});

describe("MemoryStore", () => {
  test("counts per key in fixed windows and stays within maxKeys", async () => {
    const store = new MemoryStore({ maxKeys: 10 });
    expect(store.hit("a", 50)).toMatchObject({ count: 1 });
    expect(store.hit("a", 50)).toMatchObject({ count: 2 });
    expect(store.hit("b", 50).count).toBe(1);
    await Bun.sleep(60);
    expect(store.hit("a", 50).count).toBe(1);
    for (let i = 0; i < 100; i++) store.hit(`k${i}`, 60_000);
    expect(store.size).toBeLessThanOrEqual(10);
  });
});
