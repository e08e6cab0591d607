/**
 * Jobs on BullMQ with a real redis-server, in one process: retries with backoff, failed jobs kept
 * in Redis and listed, time limits, delays, ids enqueued once, and a Redis that is not there
 * failing `start()`. (Several processes and machines: machines.test.ts.)
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { Subprocess } from "bun";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { freePort } from "../cli/helpers.ts";
import { startRedis } from "../helpers/redis.ts";
import { describeWithProgram } from "../helpers/system-program.ts";

async function until(what: string, ms: number, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

describeWithProgram("redis-server", "apt-get install -y redis-server", "jobs on BullMQ", () => {
  let redis: Subprocess;
  let redisUrl = "";
  const servers: ServerHandle[] = [];

  beforeAll(async () => {
    const started = await startRedis();
    redis = started.process;
    redisUrl = started.url;
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
  });
  afterAll(() => {
    redis?.kill();
  });

  async function start(app: Webfw): Promise<ServerHandle> {
    const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
    servers.push(server);
    return server;
  }

  test("a failing job is retried with backoff, then kept in Redis and listed by failedJobs", async () => {
    const app = new Webfw(import.meta.path).configureBroadcast({ redisUrl });
    const attempts: number[] = [];
    app.job(
      "flaky-redis",
      (_data, job) => {
        attempts.push(job.attempt);
        throw new Error(`down ${job.attempt}`);
      },
      { retries: 2, backoff: 50 },
    );
    await start(app);
    const id = await app.enqueue("flaky-redis", { order: 7 });
    await until("three attempts", 5000, () => attempts.length === 3);
    let failed: Awaited<ReturnType<typeof app.failedJobs>> = [];
    await until("the failed job", 3000, () => {
      void app.failedJobs("flaky-redis").then((list) => {
        failed = list;
      });
      return failed.length > 0;
    });
    expect(attempts).toEqual([1, 2, 3]);
    expect(failed[0]).toMatchObject({
      id,
      name: "flaky-redis",
      data: { order: 7 },
      error: "down 3",
      attempts: 3,
    });
    // Another app on the same Redis (another machine) sees it too.
    const other = new Webfw(import.meta.path).configureBroadcast({ redisUrl });
    other.job("flaky-redis", () => {});
    expect((await other.failedJobs("flaky-redis")).map((job) => job.id)).toEqual([id]);
  });

  test("timeoutMs fails a run; delay holds a job back; an id is enqueued once", async () => {
    const app = new Webfw(import.meta.path).configureBroadcast({ redisUrl });
    const done: string[] = [];
    app.job("slow-redis", () => Bun.sleep(1000), { timeoutMs: 100 });
    app.job<string>("later", (value) => {
      done.push(value);
    });
    await start(app);
    await app.enqueue("slow-redis", null);
    let failed: Awaited<ReturnType<typeof app.failedJobs>> = [];
    await until("the time limit", 3000, () => {
      void app.failedJobs("slow-redis").then((list) => {
        failed = list;
      });
      return failed.length > 0;
    });
    expect(failed[0]?.error).toBe("job slow-redis took longer than 100 ms");

    const started = Date.now();
    expect(await app.enqueue("later", "first", { delay: 300, id: "only" })).toBe("only");
    expect(await app.enqueue("later", "second", { id: "only" })).toBe("only");
    await until("the delayed job", 3000, () => done.length > 0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await Bun.sleep(200);
    expect(done).toEqual(["first"]);
  });

  test("the job's span, run by BullMQ's worker, is a child of the request that enqueued it", async () => {
    const exporter = new InMemorySpanExporter();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(
      new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
    );
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    try {
      const app = new Webfw(import.meta.path, { tracing: true }).configureBroadcast({ redisUrl });
      let ran = false;
      app.job("traced-redis", () => {
        ran = true;
      });
      app.post("/go", async (request) => ({ id: await request.enqueue("traced-redis", {}) }));
      const server = await start(app);
      expect((await fetch(`${server.url}/go`, { method: "POST" })).status).toBe(200);
      await until("the job", 3000, () => ran);
      await Bun.sleep(50);
      const spans = exporter.getFinishedSpans();
      const request = spans.find((span) => span.name === "POST /go");
      const job = spans.find((span) => span.name === "job traced-redis");
      expect(job?.spanContext().traceId).toBe(request?.spanContext().traceId as string);
      expect(job?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId as string);
    } finally {
      trace.disable();
      propagation.disable();
      context.disable();
    }
  });

  test("a server stopped and started again runs jobs again", async () => {
    const app = new Webfw(import.meta.path).configureBroadcast({ redisUrl });
    const seen: number[] = [];
    app.job<number>("restarted", (n) => {
      seen.push(n);
    });
    await (await app.start({ port: 0, host: "127.0.0.1", accessLog: false })).stop();
    await start(app);
    await app.enqueue("restarted", 5);
    await until("the job after the restart", 3000, () => seen.length === 1);
    expect(seen).toEqual([5]);
  });

  test("a Redis that is not there fails start()", async () => {
    const app = new Webfw(import.meta.path).configureBroadcast({
      redisUrl: `redis://127.0.0.1:${freePort()}`,
    });
    app.cron("* * * * *", () => {}, { name: "nowhere" });
    await expect(app.start({ port: 0, host: "127.0.0.1", accessLog: false })).rejects.toThrow();
  });
});
