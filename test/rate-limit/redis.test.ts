/**
 * Rate limits in Redis (a real redis-server): exact counts with one atomic
 * round trip per request, two `--processes` behind one port sharing one limit,
 * and Redis going away mid-test (fail open by default, 503 with
 * `onStoreError: "deny"`, counting again once Redis is back).
 */
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { RedisClient } from "bun";
import { RedisStore } from "../../src/entries/rate-limit.ts";
import { Webfw } from "../../src/index.ts";
import { logger, stderrSink } from "../../src/log/logger.ts";
import { launchProgram } from "../faults/spawn.ts";
import { redisSuite } from "../helpers/redis.ts";
import { describeWithProgram } from "../helpers/system-program.ts";
import { rawGet } from "../security/raw-client.ts";

const EXAMPLE = join(import.meta.dir, "../../examples/rate-limit.ts");

describeWithProgram("redis-server", "apt-get install -y redis-server", "rate limits in Redis", () => {
  const redis = redisSuite();
  afterAll(() => logger.setSink(stderrSink));

  test("exact counts at the window edge, concurrent requests, one EVALSHA per request", async () => {
    const admin = new RedisClient(redis.url);
    await admin.send("CONFIG", ["RESETSTAT"]);
    const app = new Webfw(import.meta.path);
    const store = new RedisStore({ url: redis.url, prefix: `t1:${crypto.randomUUID()}:` });
    app.get("/edge", () => "ok", { rateLimit: { limit: 2, windowMs: 1_200, store } });
    app.get("/many", () => "ok", { rateLimit: { limit: 20, windowMs: 60_000, store } });
    const server = await redis.serve(app);
    const started = performance.now();
    const edge: Response[] = [];
    for (let i = 0; i < 3; i++) edge.push(await fetch(`${server.url}/edge`));
    expect(edge.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(edge.map((r) => r.headers.get("ratelimit")?.replace(/;t=\d+$/, ""))).toEqual([
      '"GET /edge";r=1',
      '"GET /edge";r=0',
      '"GET /edge";r=0',
    ]);
    expect(edge[2]?.headers.get("retry-after")).toMatch(/^[12]$/);
    await Bun.sleep(Math.max(0, 1_300 - (performance.now() - started)));
    const next = await fetch(`${server.url}/edge`);
    expect(next.status).toBe(200);
    expect(next.headers.get("ratelimit")).toStartWith('"GET /edge";r=1;');

    const statuses = await Promise.all(
      Array.from({ length: 50 }, () => fetch(`${server.url}/many`).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200).length).toBe(20);
    expect(statuses.filter((s) => s === 429).length).toBe(30);

    // One round trip each: 54 requests were counted by 54 EVALSHA calls (plus at most one EVAL
    // that taught Redis the script).
    const stats = String(await admin.send("INFO", ["commandstats"]));
    const calls = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
    expect(calls("evalsha")).toBe(54);
    expect(calls("eval")).toBeLessThanOrEqual(1);
    admin.close();
  }, 30_000);

  test("two --processes behind one port share one limit", async () => {
    const env = { REDIS_URL: redis.url, RATE_LIMIT: "30", RATE_WINDOW_MS: "60000" };
    const program = await launchProgram(EXAMPLE, ["--processes", "2"], { env, listening: 2 });
    redis.keep(program);
    // Each request on a new connection, so the kernel spreads them over both processes.
    const replies = [];
    for (let i = 0; i < 60; i++) replies.push(await rawGet(program.port, "/pid"));
    const ok = replies.filter((r) => r.status === 200);
    expect(ok.length).toBe(30);
    expect(replies.filter((r) => r.status === 429).length).toBe(30);
    const pids = new Set(ok.map((r) => (JSON.parse(r.body) as { pid: number }).pid));
    expect(pids.size).toBe(2);
    const refused = replies.find((r) => r.status === 429);
    expect(refused?.headers["content-type"]).toBe("application/problem+json");
    expect(refused?.headers["ratelimit-policy"]).toBe('"app";q=30;w=60');
  }, 60_000);

  test("Redis going away: fail open by default, 503 when the limit says deny, counting again when it is back", async () => {
    const lines: string[] = [];
    logger.setSink((line) => {
      lines.push(line);
    });
    const app = new Webfw(import.meta.path);
    const store = new RedisStore({ url: redis.url, prefix: `t3:${crypto.randomUUID()}:`, timeoutMs: 300 });
    app.rateLimit({ limit: 3, windowMs: 60_000, store });
    app.get("/", () => "ok");
    app.get("/deny", () => "ok", { rateLimit: { onStoreError: "deny", name: "deny" } });
    const server = await redis.serve(app);
    const first = await fetch(`${server.url}/`);
    expect(first.headers.get("ratelimit")).toStartWith('"app";r=2;');

    await redis.kill();
    for (let i = 0; i < 5; i++) {
      const open = await fetch(`${server.url}/`);
      expect(open.status).toBe(200);
      expect(await open.text()).toBe("ok");
      expect(open.headers.get("ratelimit")).toBeNull();
    }
    const closed = await fetch(`${server.url}/deny`);
    expect(closed.status).toBe(503);
    expect(closed.headers.get("retry-after")).toBe("1");
    expect(
      lines.some((line) => line.includes("level=WARNING") && line.includes("rate limit store failed")),
    ).toBe(true);

    await redis.restart();
    // A failed connection is retried after a second; then counting starts again (Redis lost the old counts).
    await Bun.sleep(1_100);
    const back = await fetch(`${server.url}/`);
    expect(back.status).toBe(200);
    expect(back.headers.get("ratelimit")).toStartWith('"app";r=2;');
    expect((await fetch(`${server.url}/deny`)).status).toBe(200);
  }, 30_000);

  test("a key holding something else is a store error, not a crash", async () => {
    const admin = new RedisClient(redis.url);
    const prefix = `t4:${crypto.randomUUID()}:`;
    await admin.send("SET", [`${prefix}app:ip:127.0.0.1`, "not a number"]);
    admin.close();
    const app = new Webfw(import.meta.path);
    app.rateLimit({ limit: 1, windowMs: 60_000, store: new RedisStore({ url: redis.url, prefix }) });
    app.get("/", () => "ok");
    const server = await redis.serve(app);
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit")).toBeNull();
  });
});
