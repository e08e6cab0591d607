/**
 * The response cache with the in-process store (docs/caching.md), through a real server: hits with
 * `Age`, `Cache-Status` and ETags (304), one computation for 100 concurrent misses, stale answers
 * while one refresh runs, what is never stored (cookies, no-store, credentials without a key),
 * `vary`, tags and keys, routers, and what `http-cache-semantics` says of the answers.
 */
import { afterAll, expect, test } from "bun:test";
import CachePolicy from "http-cache-semantics";
import { MemoryCacheStore } from "../../src/entries/cache.ts";
import { BasicAuth, type Request, type ServerHandle, SubRouter, Webfw } from "../../src/index.ts";

const servers: ServerHandle[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop(true);
});

async function serve(app: Webfw): Promise<ServerHandle> {
  const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
  servers.push(server);
  return server;
}

/** What http-cache-semantics makes of one request and its answer. */
function policyOf(url: string, response: Response, requestHeaders: Record<string, string> = {}): CachePolicy {
  return new CachePolicy(
    { url: new URL(url).pathname, method: "GET", headers: { host: new URL(url).host, ...requestHeaders } },
    { status: response.status, headers: Object.fromEntries(response.headers) },
    { shared: true },
  );
}

test("a hit: the same body, Age, Cache-Status, the ETag reused and 304; http-cache-semantics agrees", async () => {
  const app = new Webfw(import.meta.path);
  let runs = 0;
  app.get("/report", () => ({ run: ++runs }), {
    cacheResponses: { ttl: 60_000, staleWhileRevalidate: 30_000 },
  });
  const server = await serve(app);
  const first = await fetch(`${server.url}/report`);
  expect(first.status).toBe(200);
  expect(await first.json()).toEqual({ run: 1 });
  expect(first.headers.get("cache-status")).toBe("webfw; fwd=uri-miss; stored");
  expect(first.headers.get("age")).toBe("0");
  expect(first.headers.get("cache-control")).toBe("public, max-age=60, stale-while-revalidate=30");
  expect(first.headers.get("content-type")).toBe("application/json;charset=utf-8");
  const etag = first.headers.get("etag");
  expect(etag).toMatch(/^W\/"[0-9a-f]+-[0-9a-z]+"$/);

  await Bun.sleep(1100);
  const second = await fetch(`${server.url}/report`);
  expect(await second.json()).toEqual({ run: 1 });
  expect(second.headers.get("age")).toBe("1");
  expect(second.headers.get("cache-status")).toMatch(/^webfw; hit; ttl=5[89]$/);
  expect(second.headers.get("etag")).toBe(etag);
  expect(runs).toBe(1);

  const policy = policyOf(`${server.url}/report`, second);
  expect(policy.storable()).toBe(true);
  // Fresh for what is left of the ttl (60 s minus the Age), then usable stale for 30 s more.
  expect(policy.maxAge()).toBe(60);
  expect(policy.age()).toBeGreaterThanOrEqual(1);
  expect(policy.stale()).toBe(false);
  expect(policy.timeToLive()).toBeGreaterThan(87_000);
  expect(policy.timeToLive()).toBeLessThanOrEqual(89_000);

  const revalidated = await fetch(`${server.url}/report`, { headers: { "if-none-match": etag as string } });
  expect(revalidated.status).toBe(304);
  expect(await revalidated.text()).toBe("");
  expect(revalidated.headers.get("etag")).toBe(etag);
  expect(runs).toBe(1);
  // http-cache-semantics accepts the 304 as a revalidation of what it stored.
  const { policy: updated, modified } = policy.revalidatedPolicy(
    { url: "/report", method: "GET", headers: { host: new URL(server.url).host } },
    { status: 304, headers: Object.fromEntries(revalidated.headers) },
  );
  expect(modified).toBe(false);
  expect(updated.storable()).toBe(true);

  const head = await fetch(`${server.url}/report`, { method: "HEAD" });
  expect(head.status).toBe(200);
  expect(head.headers.get("cache-status")).toStartWith("webfw; hit");
  expect(runs).toBe(1);
});

test("the handler's own ETag and Cache-Control are kept", async () => {
  const app = new Webfw(import.meta.path);
  app.get(
    "/own",
    () => ({
      statusCode: 200,
      description: "v7",
      headers: { etag: '"v7"', "cache-control": "public, max-age=5" },
    }),
    { cacheResponses: { ttl: 60_000 } },
  );
  const server = await serve(app);
  await fetch(`${server.url}/own`);
  const hit = await fetch(`${server.url}/own`);
  expect(hit.headers.get("cache-status")).toStartWith("webfw; hit");
  expect(hit.headers.get("etag")).toBe('"v7"');
  expect(hit.headers.get("cache-control")).toBe("public, max-age=5");
  const notModified = await fetch(`${server.url}/own`, { headers: { "if-none-match": '"v7"' } });
  expect(notModified.status).toBe(304);
});

test("with the app's ETags on: the same tag with and without the cache, 304 from a hit", async () => {
  const app = new Webfw(import.meta.path, { etag: true });
  app.get("/plain", () => ({ same: "body" }));
  app.get("/cached", () => ({ same: "body" }), { cacheResponses: { ttl: 60_000 } });
  const server = await serve(app);
  const plain = (await fetch(`${server.url}/plain`)).headers.get("etag");
  expect(plain).toMatch(/^W\//);
  await fetch(`${server.url}/cached`);
  const hit = await fetch(`${server.url}/cached`);
  expect(hit.headers.get("etag")).toBe(plain);
  const revalidated = await fetch(`${server.url}/cached`, { headers: { "if-none-match": plain as string } });
  expect(revalidated.status).toBe(304);
  expect(revalidated.headers.get("cache-status")).toStartWith("webfw; hit");
});

test("a stampede of 100 concurrent misses runs the handler once", async () => {
  const app = new Webfw(import.meta.path);
  let runs = 0;
  app.get(
    "/slow",
    async () => {
      runs++;
      await Bun.sleep(200);
      return "computed";
    },
    { cacheResponses: { ttl: 60_000 } },
  );
  const server = await serve(app);
  const answers = await Promise.all(Array.from({ length: 100 }, () => fetch(`${server.url}/slow`)));
  expect(answers.map((r) => r.status)).toEqual(Array(100).fill(200));
  expect(new Set(await Promise.all(answers.map((r) => r.text())))).toEqual(new Set(["computed"]));
  expect(runs).toBe(1);
  expect(answers.filter((r) => r.headers.get("cache-status")?.includes("stored")).length).toBe(1);
});

test("stale-while-revalidate: the stale answer at once, one refresh, then the new one", async () => {
  const app = new Webfw(import.meta.path);
  let runs = 0;
  app.get(
    "/swr",
    async () => {
      const run = ++runs;
      if (run > 1) await Bun.sleep(300);
      return `v${run}`;
    },
    { cacheResponses: { ttl: 300, staleWhileRevalidate: 10_000 } },
  );
  const server = await serve(app);
  expect(await (await fetch(`${server.url}/swr`)).text()).toBe("v1");
  await Bun.sleep(400);
  const started = performance.now();
  const stale = await Promise.all(Array.from({ length: 20 }, () => fetch(`${server.url}/swr`)));
  // Answered without waiting for the 300 ms refresh.
  expect(performance.now() - started).toBeLessThan(250);
  expect(new Set(await Promise.all(stale.map((r) => r.text())))).toEqual(new Set(["v1"]));
  expect(stale[0]?.headers.get("cache-status")).toMatch(/^webfw; hit; ttl=-?\d+; detail=stale$/);
  // http-cache-semantics: stale, but usable while revalidating.
  const policy = policyOf(`${server.url}/swr`, stale[0] as Response);
  expect(policy.stale()).toBe(true);
  await Bun.sleep(500);
  expect(runs).toBe(2);
  const fresh = await fetch(`${server.url}/swr`);
  expect(await fresh.text()).toBe("v2");
  expect(fresh.headers.get("cache-status")).toStartWith("webfw; hit; ttl=");
  expect(runs).toBe(2);
});

test("never stored: Set-Cookie, no-store/private/no-cache, errors, streams; each run again", async () => {
  const app = new Webfw(import.meta.path);
  const runs: Record<string, number> = {};
  const count = (name: string) => {
    runs[name] = (runs[name] ?? 0) + 1;
  };
  const cacheResponses = { ttl: 60_000 };
  app.get(
    "/cookie",
    () => {
      count("cookie");
      return { statusCode: 200, description: "c", headers: { "set-cookie": "a=b" } };
    },
    { cacheResponses },
  );
  for (const control of ["no-store", "private", "no-cache", "max-age=0, no-store"]) {
    app.get(
      `/control/${control.replaceAll(/[ ,=]/g, "")}`,
      () => {
        count(control);
        return { statusCode: 200, description: "x", headers: { "cache-control": control } };
      },
      { cacheResponses },
    );
  }
  app.get(
    "/error",
    () => {
      count("error");
      throw new Error("boom");
    },
    { cacheResponses },
  );
  app.get(
    "/stream",
    () => {
      count("stream");
      return new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("streamed"));
          controller.close();
        },
      });
    },
    { cacheResponses },
  );
  app.get(
    "/vary-star",
    () => {
      count("vary");
      return { statusCode: 200, description: "v", headers: { vary: "*" } };
    },
    { cacheResponses },
  );
  const server = await serve(app);
  const paths = [
    "/cookie",
    "/control/no-store",
    "/control/private",
    "/control/no-cache",
    "/control/max-age0no-store",
    "/error",
    "/stream",
    "/vary-star",
  ];
  for (const path of paths) {
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.headers.get("cache-status")).toBeNull();
      expect(response.headers.get("age")).toBeNull();
      if (path === "/stream") expect(await response.text()).toBe("streamed");
      if (path === "/error") expect(response.status).toBe(500);
      if (path === "/cookie") expect(response.headers.get("set-cookie")).toBe("a=b");
    }
  }
  expect(runs).toEqual({
    cookie: 2,
    "no-store": 2,
    private: 2,
    "no-cache": 2,
    "max-age=0, no-store": 2,
    error: 2,
    stream: 2,
    vary: 2,
  });
  // http-cache-semantics does not store them either.
  const noStore = await fetch(`${server.url}/control/no-store`);
  expect(policyOf(`${server.url}/control/no-store`, noStore).storable()).toBe(false);
});

test("credentials: not cached without a key; a key with the identity keeps answers apart", async () => {
  const app = new Webfw(import.meta.path);
  app.configureAuthentication(new BasicAuth({ users: { ann: "pw-a", bob: "pw-b" } }));
  let runs = 0;
  const whoami = (request: Request) => {
    runs++;
    return { user: request.identity?.claims.sub ?? null };
  };
  app.get("/plain", whoami, { cacheResponses: { ttl: 60_000 } });
  app.get("/mine", whoami, {
    authRequired: true,
    cacheResponses: {
      ttl: 60_000,
      key: (request: Request) => `user:${String(request.identity?.claims.sub)}`,
    },
  });
  const server = await serve(app);
  const basic = (user: string, password: string) => ({
    authorization: `Basic ${btoa(`${user}:${password}`)}`,
  });
  // Authenticated, no key: each request runs, nothing is stored, nothing served from the cache.
  for (let i = 0; i < 2; i++) {
    const response = await fetch(`${server.url}/plain`, { headers: basic("ann", "pw-a") });
    expect(await response.json()).toEqual({ user: "ann" });
    expect(response.headers.get("cache-status")).toBeNull();
  }
  // A cookie is a credential too.
  const withCookie = await fetch(`${server.url}/plain`, { headers: { cookie: "sid=1" } });
  expect(withCookie.headers.get("cache-status")).toBeNull();
  expect(runs).toBe(3);
  // An anonymous answer is cached, and never given to a request with credentials.
  await fetch(`${server.url}/plain`);
  expect((await fetch(`${server.url}/plain`)).headers.get("cache-status")).toStartWith("webfw; hit");
  expect(await (await fetch(`${server.url}/plain`, { headers: basic("bob", "pw-b") })).json()).toEqual({
    user: "bob",
  });
  expect(runs).toBe(5);

  runs = 0;
  for (let i = 0; i < 2; i++) {
    const ann = await fetch(`${server.url}/mine`, { headers: basic("ann", "pw-a") });
    expect(await ann.json()).toEqual({ user: "ann" });
    expect(ann.headers.get("cache-control")).toBe("private, max-age=60");
    const bob = await fetch(`${server.url}/mine`, { headers: basic("bob", "pw-b") });
    expect(await bob.json()).toEqual({ user: "bob" });
  }
  expect(runs).toBe(2);
  // Authentication still runs on a hit.
  expect((await fetch(`${server.url}/mine`)).status).toBe(401);
  expect((await fetch(`${server.url}/mine`, { headers: basic("ann", "wrong") })).status).toBe(401);
  const hit = await fetch(`${server.url}/mine`, { headers: basic("ann", "pw-a") });
  expect(hit.headers.get("cache-status")).toStartWith("webfw; hit");
  // A private answer: no shared cache may store it, a private one may.
  expect(policyOf(`${server.url}/mine`, hit, basic("ann", "pw-a")).storable()).toBe(false);
});

test("vary: one entry per header value, named in Vary", async () => {
  const app = new Webfw(import.meta.path);
  let runs = 0;
  app.get(
    "/greeting",
    (request) => {
      runs++;
      return request.headers.get("accept-language")?.startsWith("fr") ? "bonjour" : "hello";
    },
    { cacheResponses: { ttl: 60_000, vary: ["Accept-Language"] } },
  );
  const server = await serve(app);
  for (let i = 0; i < 2; i++) {
    const fr = await fetch(`${server.url}/greeting`, { headers: { "accept-language": "fr-FR" } });
    expect(await fr.text()).toBe("bonjour");
    expect(fr.headers.get("vary")).toBe("accept-language");
    expect(
      await (await fetch(`${server.url}/greeting`, { headers: { "accept-language": "en" } })).text(),
    ).toBe("hello");
  }
  expect(runs).toBe(2);
});

test("invalidate by tags and by key; query strings are separate keys", async () => {
  const app = new Webfw(import.meta.path);
  let runs = 0;
  app.get("/products/:id", (request) => ({ id: request.pathParams.id, run: ++runs }), {
    cacheResponses: {
      ttl: 60_000,
      tags: (request: Request) => ["products", `product:${request.pathParams.id}`],
    },
  });
  const server = await serve(app);
  const get = async (path: string) => (await (await fetch(`${server.url}${path}`)).json()) as { run: number };
  expect((await get("/products/1")).run).toBe(1);
  expect((await get("/products/2")).run).toBe(2);
  expect((await get("/products/2?x=1")).run).toBe(3);
  expect((await get("/products/1")).run).toBe(1);
  expect(await app.cache.invalidate({ tags: ["product:1"] })).toBe(1);
  expect((await get("/products/1")).run).toBe(4);
  expect((await get("/products/2")).run).toBe(2);
  expect(await app.cache.invalidate({ key: "/products/2?x=1" })).toBe(1);
  expect((await get("/products/2?x=1")).run).toBe(5);
  expect(await app.cache.invalidate({ tags: ["products"] })).toBe(3);
  expect((await get("/products/2")).run).toBe(6);
  await expect(app.cache.invalidate({} as never)).rejects.toThrow("needs { tags } or { key }");
  await expect(app.cache.invalidate({ tags: [""] })).rejects.toThrow(
    "tags must be a list of non-empty strings",
  );
});

test("routers: cacheResponses covers their GET routes; a route's false or own setting wins", async () => {
  const app = new Webfw(import.meta.path);
  const runs: Record<string, number> = { a: 0, b: 0, c: 0, p: 0 };
  const api = new SubRouter(import.meta.path, { prefix: "/api" });
  api.cacheResponses({ ttl: 60_000 });
  api.get("/a", () => ++runs.a);
  api.get("/b", () => ++runs.b, { cacheResponses: false });
  api.get("/c", () => ++runs.c, { cacheResponses: { ttl: 60_000, tags: ["c"] } });
  api.post("/p", () => ++runs.p);
  app.includeRouter(api);
  const server = await serve(app);
  for (let i = 0; i < 3; i++) {
    for (const path of ["a", "b", "c"]) await fetch(`${server.url}/api/${path}`);
    await fetch(`${server.url}/api/p`, { method: "POST" });
  }
  expect(runs).toEqual({ a: 1, b: 3, c: 1, p: 3 });
  expect(await app.cache.invalidate({ tags: ["c"] })).toBe(1);
});

test("bad settings fail where they are made; a bad key function is a 500", async () => {
  const app = new Webfw(import.meta.path);
  expect(() => app.cacheResponses({ ttl: 0 })).toThrow("ttl must be a positive integer");
  expect(() => app.cacheResponses({ ttl: 10, vary: ["bad header"] })).toThrow(
    "vary must be a list of header names",
  );
  expect(() => app.cacheResponses({ ttl: 10, staleWhileRevalidate: -1 })).toThrow("staleWhileRevalidate");
  expect(() => app.cacheResponses({ ttl: 10, ttlMs: 3 } as never)).toThrow('unknown option "ttlMs"');
  expect(() => new Webfw(import.meta.path, { cacheStore: {} as never })).toThrow("cacheStore must have");

  const post = new Webfw(import.meta.path);
  post.post("/x", () => "x", { cacheResponses: { ttl: 10 } });
  await expect(post.start({ port: 0, host: "127.0.0.1" })).rejects.toThrow("only GET routes");

  // The route option's old name (before 1.0) is refused with the new one, not silently ignored.
  const old = new Webfw(import.meta.path);
  old.get("/old", () => "x", { cache: { ttl: 10 } } as never);
  await expect(old.build()).rejects.toThrow("GET /old: the option cache is now cacheResponses");

  const keyed = new Webfw(import.meta.path);
  keyed.get("/k", () => "k", { cacheResponses: { ttl: 1000, key: () => 42 as unknown as string } });
  const server = await serve(keyed);
  const response = await fetch(`${server.url}/k`);
  expect(response.status).toBe(500);
});

test("routes without cache keep their handler: nothing runs per request", async () => {
  const app = new Webfw(import.meta.path);
  const plain = () => "plain";
  const cachedHandler = () => "cached";
  app.get("/plain", plain);
  app.get("/cached", cachedHandler, { cacheResponses: { ttl: 1000 } });
  const { buildRuntime } = await import("../../src/plan/build.ts");
  const built = await buildRuntime(app);
  expect(built.plans.find((plan) => plan.pattern === "/plain")?.handler).toBe(plain);
  expect(built.plans.find((plan) => plan.pattern === "/cached")?.handler).not.toBe(cachedHandler);
  await built.close();
});

test("MemoryCacheStore: least recently used entries go first once past maxBytes; expired ones are gone", () => {
  const store = new MemoryCacheStore({ maxBytes: 4000 });
  const entry = (size: number, ttl = 60_000) => ({
    status: 200,
    headers: [] as [string, string][],
    body: new Uint8Array(size),
    storedAt: Date.now(),
    ttl,
    staleWhileRevalidate: 0,
    tags: ["t:all"],
  });
  store.set("a", entry(1000));
  store.set("b", entry(1000));
  store.set("c", entry(1000));
  expect(store.get("a")).not.toBeNull(); // a is now the most recent
  store.set("d", entry(1000));
  expect(store.get("b")).toBeNull();
  expect(store.get("a")).not.toBeNull();
  expect(store.get("c")).not.toBeNull();
  expect(store.bytes).toBeLessThanOrEqual(4000);
  store.set("huge", entry(5000));
  expect(store.get("huge")).toBeNull();
  store.set("old", { ...entry(10, 10), storedAt: Date.now() - 20 });
  expect(store.get("old")).toBeNull();
  expect(store.invalidate(["t:all"])).toBe(3);
  expect(store.size).toBe(0);
  expect(store.bytes).toBe(0);
  expect(() => new MemoryCacheStore({ maxBytes: 0 })).toThrow("maxBytes");
});
