/**
 * Issue 31: `algorithm: "sliding"` on a real redis-server. One atomic script per request (the
 * clock is Redis's), a burst across a window's end gets about `limit` through (a fixed window
 * lets 2 × through), two stores (two processes) share one sliding count, refused requests are not
 * counted, and a fixed and a sliding policy of the same name keep apart.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient, type Subprocess } from "bun";
import { RedisStore } from "../../src/entries/rate-limit.ts";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { startRedis } from "../helpers/redis.ts";
import { describeWithProgram } from "../helpers/system-program.ts";

describeWithProgram("redis-server", "apt-get install -y redis-server", "sliding rate limits in Redis", () => {
  let redis: Subprocess | null = null;
  let url = "";
  const servers: ServerHandle[] = [];
  const stores: RedisStore[] = [];

  beforeAll(async () => {
    const started = await startRedis();
    redis = started.process;
    url = started.url;
  }, 30_000);
  afterAll(async () => {
    for (const server of servers) await server.stop(true);
    for (const store of stores) store.close();
    redis?.kill();
    await redis?.exited;
  });

  function storeFor(prefix: string): RedisStore {
    const store = new RedisStore({ url, prefix });
    stores.push(store);
    return store;
  }

  async function statuses(target: string, n: number): Promise<number[]> {
    return Promise.all(Array.from({ length: n }, () => fetch(target).then((r) => r.status)));
  }

  test("a burst across a window's end: about the limit passes, far from 2 ×", async () => {
    const app = new Webfw(import.meta.path);
    const store = storeFor(`s1:${crypto.randomUUID()}:`);
    app.rateLimit({ limit: 10, windowMs: 2_000, algorithm: "sliding", store });
    app.get("/", () => "ok");
    const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
    servers.push(server);
    const target = `${server.url}/`;
    const t0 = performance.now();
    expect(await statuses(target, 1)).toEqual([200]);
    await Bun.sleep(Math.max(0, 1_800 - (performance.now() - t0)));
    const before = await statuses(target, 10);
    await Bun.sleep(Math.max(0, 2_200 - (performance.now() - t0)));
    const after = await statuses(target, 10);
    const spanMs = performance.now() - t0 - 1_800;
    const passed = [...before, ...after].filter((status) => status === 200).length;
    // A fixed window lets 19 of these 20 through (9 before its end, 10 after). The sliding counter
    // lets through at most the limit plus the share of it that faded during the span (≈ 200-400 ms
    // of a 2 s window here): never 2 ×.
    expect(passed).toBeLessThanOrEqual(10 + Math.ceil((10 * spanMs) / 2_000));
    expect(passed).toBeLessThan(20);
    expect([...before, ...after].every((status) => status === 200 || status === 429)).toBe(true);
  }, 20_000);

  test("the same answers as the memory store: counts, remaining, Retry-After; refusals not counted", async () => {
    const app = new Webfw(import.meta.path);
    const store = storeFor(`s2:${crypto.randomUUID()}:`);
    app.rateLimit({ limit: 3, windowMs: 60_000, algorithm: "sliding", store });
    app.get("/", () => "ok");
    const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
    servers.push(server);
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${server.url}/`);
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-policy")).toBe('"app";q=3;w=60');
      seen.push(response.headers.get("ratelimit") as string);
    }
    // One more is available when this window's count has faded by one in the next one: 60 s + 60 s × (1 − (n − 1) / n).
    expect(seen).toEqual(['"app";r=2;t=120', '"app";r=1;t=90', '"app";r=0;t=80']);
    for (let i = 0; i < 5; i++) {
      const refused = await fetch(`${server.url}/`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("80");
      expect(refused.headers.get("ratelimit")).toBe('"app";r=0;t=80');
    }
    // Refusals were not counted: the hash still says 3 in this window.
    const admin = new RedisClient(url);
    const keys = (await admin.send("KEYS", ["s2:*"])) as string[];
    expect(keys.length).toBe(1);
    const [start, previous, current] = (await admin.send("HMGET", [
      keys[0] as string,
      "s",
      "p",
      "c",
    ])) as string[];
    expect([previous, current]).toEqual(["0", "3"]);
    expect(Math.abs(Number(start) - Date.now())).toBeLessThan(5_000);
    // It expires two windows after its start.
    const ttl = Number(await admin.send("PTTL", [keys[0] as string]));
    expect(ttl).toBeGreaterThan(110_000);
    expect(ttl).toBeLessThanOrEqual(120_000);
    admin.close();
  });

  test("two stores on one Redis (two processes) share one sliding count", async () => {
    const prefix = `s3:${crypto.randomUUID()}:`;
    const a = storeFor(prefix);
    const b = storeFor(prefix);
    const counts: number[] = [];
    for (let i = 0; i < 6; i++) counts.push((await (i % 2 === 0 ? a : b).hitSliding("k", 60_000, 4)).count);
    expect(counts).toEqual([1, 2, 3, 4, 5, 5]);
  });

  test("a fixed and a sliding policy of the same name keep apart", async () => {
    const store = storeFor(`s4:${crypto.randomUUID()}:`);
    const app = new Webfw(import.meta.path);
    app.get("/fixed", () => "ok", { rateLimit: { limit: 2, windowMs: 60_000, name: "shared", store } });
    app.get("/sliding", () => "ok", {
      rateLimit: { limit: 2, windowMs: 60_000, name: "shared", store, algorithm: "sliding" },
    });
    const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
    servers.push(server);
    const get = async (path: string) => (await fetch(`${server.url}${path}`)).status;
    expect([await get("/fixed"), await get("/sliding"), await get("/fixed"), await get("/sliding")]).toEqual([
      200, 200, 200, 200,
    ]);
    expect([await get("/fixed"), await get("/sliding")]).toEqual([429, 429]);
  });
});
