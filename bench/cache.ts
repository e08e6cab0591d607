/**
 * The response cache (docs/caching.md), in process, without sockets: `bun bench/cache.ts`. Calls
 * the dispatcher Bun's router would call for one route answering a JSON list of 100 items, built
 * per request (`uncached`), served from a `MemoryCacheStore` hit, and from a `RedisCacheStore` hit
 * (a redis-server started on a free port; the row is left out when redis-server is missing).
 * Requests run one at a time (latency per request, not throughput); the fastest of 7 rounds each.
 * Figures are rough on a shared machine.
 */

import { type CacheStore, MemoryCacheStore, RedisCacheStore } from "../src/entries/cache.ts";
import { Webfw } from "../src/index.ts";
import { freePort } from "../test/cli/helpers.ts";
import { spawnRedis, untilRedisAnswers } from "../test/helpers/redis.ts";

type RouteFn = (req: Request, server: null) => Response | Promise<Response>;
const ROUNDS = 7;

const items = () =>
  Array.from({ length: 100 }, (_, id) => ({ id, name: `item ${id}`, price: id * 1.5, tags: ["a", "b"] }));

async function dispatcherOf(store: CacheStore | null): Promise<RouteFn> {
  const app = new Webfw(import.meta.path, { openapi: false, ...(store ? { cacheStore: store } : {}) });
  app.get("/items", items, store ? { cacheResponses: { ttl: 600_000 } } : {});
  const built = await app.build({});
  return (built.bunRoutes["/items"] as unknown as Record<string, RouteFn>).GET as RouteFn;
}

async function bench(fn: RouteFn, n: number): Promise<number> {
  const run = async () => {
    const start = Bun.nanoseconds();
    for (let i = 0; i < n; i++) {
      let out = fn(new Request("http://127.0.0.1/items"), null);
      if (out instanceof Promise) out = await out;
      await out.arrayBuffer();
    }
    return (Bun.nanoseconds() - start) / n;
  };
  await run();
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) times.push(await run());
  return Math.min(...times);
}

const n = Number(process.env.CACHE_N ?? "20000");
const rows: [string, number][] = [];
rows.push(["uncached (JSON of 100 items per request)", await bench(await dispatcherOf(null), n)]);
rows.push(["memory store hit", await bench(await dispatcherOf(new MemoryCacheStore()), n)]);
if (Bun.which("redis-server")) {
  const port = freePort();
  const redis = spawnRedis(port);
  try {
    await untilRedisAnswers(`redis://127.0.0.1:${port}`);
    const store = new RedisCacheStore({ url: `redis://127.0.0.1:${port}` });
    rows.push([
      "redis store hit (one GET round trip)",
      await bench(await dispatcherOf(store), Math.ceil(n / 4)),
    ]);
    store.close();
  } finally {
    redis.kill();
  }
} else console.log("redis-server not found: no Redis row");
for (const [label, ns] of rows)
  console.log(`${label.padEnd(42)} ${(ns / 1000).toFixed(2).padStart(8)} µs/request`);
