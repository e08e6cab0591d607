/**
 * Issue 31: `algorithm: "sliding"` (a sliding window counter). The arithmetic on a frozen clock
 * (bun:test's setSystemTime), then over real HTTP: a burst across a window's end gets about
 * `limit` through with sliding where a fixed window lets 2 × `limit` through, and the RateLimit
 * headers (remaining, reset) and Retry-After say what the store decided.
 */
import { afterEach, describe, expect, setSystemTime, test } from "bun:test";
import { MemoryStore, type RateLimitStore } from "../../src/entries/rate-limit.ts";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { slidingAllows, slidingHit } from "../../src/rate-limit/sliding.ts";

const servers: ServerHandle[] = [];
afterEach(async () => {
  setSystemTime();
  for (const server of servers.splice(0)) await server.stop(true);
});

const T0 = new Date("2026-01-01T00:00:00.000Z").getTime();
const at = (ms: number) => setSystemTime(new Date(T0 + ms));

describe("the sliding window counter (frozen clock)", () => {
  test("a full previous window weighs by its share: refused right after the edge, one more per tenth", () => {
    const store = new MemoryStore();
    try {
      at(0);
      for (let i = 0; i < 10; i++) expect(store.hitSliding("k", 1_000, 10).count).toBe(i + 1);
      at(999);
      const refused = store.hitSliding("k", 1_000, 10);
      expect(refused.count).toBe(11);
      expect(refused.resetMs).toBe(101); // the next window's 10th of the way: 1000 + 100 - 999
      // Just past the edge: 10 × 0.999 + 0 + 1 > 10.
      at(1_001);
      expect(store.hitSliding("k", 1_000, 10).count).toBe(11);
      // A tenth in: 10 × 0.9 + 0 + 1 = 10 fits, then nothing more until the next tenth.
      at(1_100);
      const one = store.hitSliding("k", 1_000, 10);
      expect(one).toEqual({ count: 10, resetMs: 100 });
      const refusedAgain = store.hitSliding("k", 1_000, 10);
      expect(refusedAgain).toEqual({ count: 11, resetMs: 100 });
      at(1_200);
      expect(store.hitSliding("k", 1_000, 10).count).toBe(10);
      // Two windows after the last start, nothing weighs: a fresh key.
      at(3_000);
      expect(store.hitSliding("k", 1_000, 10)).toMatchObject({ count: 1 });
    } finally {
      store.close();
    }
  });

  test("refused requests are not counted: a client that keeps trying is not locked out for good", () => {
    const store = new MemoryStore();
    try {
      at(0);
      for (let i = 0; i < 5; i++) store.hitSliding("k", 1_000, 5);
      for (let i = 0; i < 100; i++) expect(store.hitSliding("k", 1_000, 5).count).toBe(6);
      at(1_500); // 5 × 0.5 + 0 + 1 ≤ 5
      expect(store.hitSliding("k", 1_000, 5).count).toBeLessThanOrEqual(5);
    } finally {
      store.close();
    }
  });

  test("remaining and reset: remaining rounds down, reset is when one more request becomes available", () => {
    // 4 in the previous window, 1 now, 250 ms into a 1 s window, limit 10: weighted 4 × 0.75 + 1 = 4.
    expect(slidingHit(true, 4, 1, 250, 1_000, 10)).toEqual({ count: 4, resetMs: 0 + 250 });
    // The weighted count drops from 4 to 3 when 4 × (1000 − τ) / 1000 + 1 ≤ 3: τ = 500, 250 ms from now.
    // No previous count: one more is available when this window's count starts to fade (next window).
    expect(slidingHit(true, 0, 3, 400, 1_000, 10)).toEqual({ count: 3, resetMs: 600 + 334 });
    expect(slidingAllows(10, 0, 100, 1_000, 10)).toBe(true);
    expect(slidingAllows(10, 0, 99, 1_000, 10)).toBe(false);
    // A refusal with this window full: until the next window has faded this one by one request.
    expect(slidingHit(false, 0, 4, 200, 1_000, 4)).toEqual({ count: 5, resetMs: 800 + 250 });
  });
});

/** Sends `n` requests at once; the statuses. */
async function burst(url: string, n: number): Promise<number[]> {
  return Promise.all(Array.from({ length: n }, () => fetch(url).then((r) => r.status)));
}

async function serveLimited(algorithm: "fixed" | "sliding", store?: RateLimitStore): Promise<ServerHandle> {
  const app = new Webfw(import.meta.path);
  app.rateLimit({ limit: 10, windowMs: 1_000, algorithm, ...(store ? { store } : {}) });
  app.get("/", () => "ok");
  const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
  servers.push(server);
  return server;
}

/**
 * One request starts the key's window at T0, a burst of `limit` just before its end, another burst
 * just after it (the clock frozen at each step, so that a loaded machine cannot move the edge).
 */
async function acrossTheEdge(algorithm: "fixed" | "sliding"): Promise<number> {
  const server = await serveLimited(algorithm);
  const url = `${server.url}/`;
  at(0);
  expect(await burst(url, 1)).toEqual([200]);
  at(950);
  const before = await burst(url, 10);
  at(1_050);
  const after = await burst(url, 10);
  return [...before, ...after].filter((status) => status === 200).length;
}

describe("a burst across a window's end, over HTTP", () => {
  test("fixed: up to 2 × limit pass (the documented edge)", async () => {
    // 9 before the edge (1 at T0), 10 after: 19 of 20 within 100 ms.
    expect(await acrossTheEdge("fixed")).toBe(19);
  });

  test("sliding: no more than the limit and the previous window's fading share", async () => {
    // Before: 9 (1 at T0). After, 5 % into the next window: 10 × 0.95 + 1 > 10, so none fits.
    const passed = await acrossTheEdge("sliding");
    expect(passed).toBe(9);
    expect(passed).toBeLessThan(2 * 10);
  });

  test("sliding headers: RateLimit counts down, the 429 says when one request fits again", async () => {
    const server = await serveLimited("sliding");
    const url = `${server.url}/`;
    at(0);
    const statuses: string[] = [];
    for (let i = 0; i < 10; i++) {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-policy")).toBe('"app";q=10;w=1');
      statuses.push(response.headers.get("ratelimit") as string);
    }
    // r counts down; t: when one more becomes available, as this window's count fades in the next
    // one: after the first request, when that one has faded entirely (2 s); after the tenth, a
    // tenth into the next window (1.1 s, rounded up).
    expect(statuses[0]).toBe('"app";r=9;t=2');
    expect(statuses.map((value) => /r=(\d+)/.exec(value)?.[1])).toEqual([
      "9",
      "8",
      "7",
      "6",
      "5",
      "4",
      "3",
      "2",
      "1",
      "0",
    ]);
    expect(statuses[9]).toBe('"app";r=0;t=2');
    at(500);
    const refused = await fetch(url);
    expect(refused.status).toBe(429);
    // The next window (500 ms away) must fade this one by a tenth (100 ms): 600 ms, 1 s rounded up.
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("ratelimit")).toBe('"app";r=0;t=1');
    at(1_600);
    const again = await fetch(url);
    expect(again.status).toBe(200);
    // 10 × 0.4 + 1 = 5: five remain.
    expect(again.headers.get("ratelimit")).toStartWith('"app";r=5;');
  });

  test("a store without hitSliding cannot serve a sliding limit: the start fails and says why", async () => {
    const app = new Webfw(import.meta.path);
    const fixedOnly: RateLimitStore = { hit: () => ({ count: 1, resetMs: 1_000 }) };
    app.get("/", () => "ok", {
      rateLimit: { limit: 1, windowMs: 1_000, algorithm: "sliding", store: fixedOnly },
    });
    await expect(app.start({ port: 0, host: "127.0.0.1", accessLog: false })).rejects.toThrow(
      'algorithm "sliding" needs a store with hitSliding()',
    );
    const bad = new Webfw(import.meta.path);
    bad.get("/", () => "ok", {
      rateLimit: { limit: 1, windowMs: 1_000, algorithm: "leaky" as unknown as "fixed" },
    });
    await expect(bad.start({ port: 0, host: "127.0.0.1", accessLog: false })).rejects.toThrow(
      'algorithm must be "fixed" or "sliding"',
    );
  });
});
