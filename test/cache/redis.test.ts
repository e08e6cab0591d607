/**
 * The response cache in a real redis-server (docs/caching.md#stores): one computation per key
 * across processes and machines (a stampede of 100 concurrent misses over two apps in this
 * process, and over `--processes 2` plus a second "machine" running examples/caching.ts), one
 * refresh of a stale entry between them, invalidations reaching every process (shared entries, and
 * per-process memory stores told over pub/sub), and Redis going away (answers go on uncached).
 */
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { MemoryCacheStore, RedisCacheStore } from "../../src/entries/cache.ts";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { logger, stderrSink } from "../../src/log/logger.ts";
import { launchProgram } from "../faults/spawn.ts";
import { redisSuite } from "../helpers/redis.ts";
import { describeWithProgram } from "../helpers/system-program.ts";
import { rawGet, rawPost } from "../security/raw-client.ts";

const EXAMPLE = join(import.meta.dir, "../../examples/caching.ts");

describeWithProgram("redis-server", "apt-get install -y redis-server", "response cache in Redis", () => {
  const redis = redisSuite();
  afterAll(() => logger.setSink(stderrSink));

  /** Two apps ("machines") with their own store objects on one Redis, the same route on each. */
  async function twoMachines(
    handler: () => unknown,
    cacheResponses: { ttl: number; staleWhileRevalidate?: number },
    prefix: string,
  ): Promise<[ServerHandle, ServerHandle]> {
    const made: ServerHandle[] = [];
    for (let i = 0; i < 2; i++) {
      const app = new Webfw(import.meta.path, {
        cacheStore: new RedisCacheStore({ url: redis.url, prefix }),
      });
      app.get("/shared", handler, { cacheResponses });
      made.push(await redis.serve(app));
    }
    return made as [ServerHandle, ServerHandle];
  }

  test("100 concurrent misses over two apps sharing Redis: the handler runs once", async () => {
    let runs = 0;
    const [a, b] = await twoMachines(
      async () => {
        runs++;
        await Bun.sleep(300);
        return { run: runs };
      },
      { ttl: 60_000 },
      `stampede:${crypto.randomUUID()}:`,
    );
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => fetch(`${(i % 2 === 0 ? a : b).url}/shared`)),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(100).fill(200));
    const bodies = await Promise.all(answers.map((r) => r.json()));
    expect(new Set(bodies.map((body) => JSON.stringify(body)))).toEqual(new Set(['{"run":1}']));
    expect(runs).toBe(1);
    // The later hit carries the shared entry's Age and ETag on both.
    const [hitA, hitB] = await Promise.all([fetch(`${a.url}/shared`), fetch(`${b.url}/shared`)]);
    expect(hitA.headers.get("cache-status")).toStartWith("webfw; hit");
    expect(hitA.headers.get("etag")).toBe(hitB.headers.get("etag"));
  }, 30_000);

  test("a stale entry: both apps serve it at once, one refresh runs between them", async () => {
    let runs = 0;
    const [a, b] = await twoMachines(
      async () => {
        const run = ++runs;
        if (run > 1) await Bun.sleep(300);
        return `v${run}`;
      },
      { ttl: 300, staleWhileRevalidate: 30_000 },
      `swr:${crypto.randomUUID()}:`,
    );
    expect(await (await fetch(`${a.url}/shared`)).text()).toBe("v1");
    await Bun.sleep(400);
    const stale = await Promise.all(
      Array.from({ length: 20 }, (_, i) => fetch(`${(i % 2 === 0 ? a : b).url}/shared`)),
    );
    expect(new Set(await Promise.all(stale.map((r) => r.text())))).toEqual(new Set(["v1"]));
    await Bun.sleep(700);
    expect(runs).toBe(2);
    expect(await (await fetch(`${b.url}/shared`)).text()).toBe("v2");
  }, 30_000);

  test("memory stores per process: an invalidation reaches the other app over pub/sub", async () => {
    const apps: Webfw[] = [];
    const urls: string[] = [];
    let runs = 0;
    for (let i = 0; i < 2; i++) {
      const app = new Webfw(import.meta.path, { cacheStore: new MemoryCacheStore() });
      app.configureBroadcast({ redisUrl: redis.url });
      app.get("/item", () => ({ run: ++runs }), { cacheResponses: { ttl: 60_000, tags: ["items"] } });
      apps.push(app);
      urls.push((await redis.serve(app)).url);
    }
    // Subscriptions are made at start, in the background.
    await Bun.sleep(300);
    for (const url of urls) await fetch(`${url}/item`);
    expect(runs).toBe(2);
    for (const url of urls)
      expect((await fetch(`${url}/item`)).headers.get("cache-status")).toStartWith("webfw; hit");
    expect(await apps[0]?.cache.invalidate({ tags: ["items"] })).toBe(1);
    await Bun.sleep(200);
    for (const url of urls)
      expect((await fetch(`${url}/item`)).headers.get("cache-status")).toContain("fwd=uri-miss");
    expect(runs).toBe(4);
  }, 30_000);

  test("examples/caching.ts: --processes 2 and a second machine, one computation, invalidations everywhere", async () => {
    const env = { REDIS_URL: redis.url, REPORT_MS: "500" };
    const first = await launchProgram(EXAMPLE, ["--processes", "2"], { env, listening: 2 });
    redis.keep(first);
    const second = await launchProgram(EXAMPLE, [], { env });
    redis.keep(second);
    // Each request on its own connection: the kernel spreads the first machine's over both processes.
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) => rawGet(i % 2 === 0 ? first.port : second.port, "/report")),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(100).fill(200));
    expect(new Set(replies.map((r) => r.body)).size).toBe(1);
    const computed = `${first.stdout()}${second.stdout()}`.match(/computing \/report/g) ?? [];
    expect(computed.length).toBe(1);

    // Products: cached once for everyone; a PUT on the second machine drops it on every process.
    const product = await rawGet(first.port, "/products/1");
    expect(product.status).toBe(200);
    for (let i = 0; i < 4; i++) {
      const hit = await rawGet(i % 2 === 0 ? first.port : second.port, "/products/1");
      expect(hit.headers["cache-status"]).toStartWith("webfw; hit");
      expect(hit.body).toBe(product.body);
    }
    const put = await rawPost(
      second.port,
      "/products/1",
      JSON.stringify({ name: "lamp" }),
      "Content-Type: application/json\r\n",
      "PUT",
    );
    expect(put.status).toBe(200);
    const after = await rawGet(first.port, "/products/1");
    expect(after.headers["cache-status"]).toContain("fwd=uri-miss");
    const malformed = await rawPost(
      second.port,
      "/products/1",
      "{",
      "Content-Type: application/json\r\n",
      "PUT",
    );
    expect(malformed.status).toBe(400);
    const missing = await rawGet(second.port, "/products/9");
    expect(missing.status).toBe(404);
    // A per-user page: one entry per identity, shared by every process.
    const ann = `Authorization: Basic ${btoa("ann:ann-password")}\r\n`;
    const me = await rawGet(first.port, "/me", ann);
    expect(JSON.parse(me.body).user).toBe("ann");
    const meAgain = await rawGet(second.port, "/me", ann);
    expect(meAgain.body).toBe(me.body);
    expect(meAgain.headers["cache-control"]).toBe("private, max-age=30");
    expect((await rawGet(second.port, "/me")).status).toBe(401);
  }, 90_000);

  test("the same store serves an app started again after stop (its connection is made anew)", async () => {
    let runs = 0;
    const app = new Webfw(import.meta.path, {
      cacheStore: new RedisCacheStore({ url: redis.url, prefix: `restart:${crypto.randomUUID()}:` }),
    });
    app.get("/r", () => `run ${++runs}`, { cacheResponses: { ttl: 60_000 } });
    const first = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
    expect(await (await fetch(`${first.url}/r`)).text()).toBe("run 1");
    await first.stop(true);
    const second = await redis.serve(app);
    const again = await fetch(`${second.url}/r`);
    expect(await again.text()).toBe("run 1");
    expect(again.headers.get("cache-status")).toStartWith("webfw; hit");
  }, 30_000);

  test("Redis going away: answers go on without the cache, one warning", async () => {
    const lines: string[] = [];
    logger.setSink((line) => {
      lines.push(line);
    });
    let runs = 0;
    const app = new Webfw(import.meta.path, {
      cacheStore: new RedisCacheStore({
        url: redis.url,
        prefix: `gone:${crypto.randomUUID()}:`,
        timeoutMs: 300,
      }),
    });
    app.get("/r", () => `run ${++runs}`, { cacheResponses: { ttl: 60_000 } });
    const server = await redis.serve(app);
    await fetch(`${server.url}/r`);
    expect((await fetch(`${server.url}/r`)).headers.get("cache-status")).toStartWith("webfw; hit");
    await redis.kill();
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${server.url}/r`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(`run ${i + 2}`);
    }
    const warnings = lines.filter((line) => line.includes("response cache store failed"));
    expect(warnings.length).toBe(1);
  }, 30_000);
});
