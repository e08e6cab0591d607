/**
 * Cron and jobs without Redis (the in-memory queue, docs/jobs.md) on a real server: what a job
 * gets, retries with backoff, failed jobs kept and visible, time limits, concurrency, delays, ids,
 * a cron every second, the start-time notice, metrics, and a job's span continuing the trace of the
 * request that enqueued it. Every malformed option is refused when registered.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { Cron } from "croner";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { tickOf } from "../../src/jobs/cron-runner.ts";
import { logger, stderrSink } from "../../src/log/logger.ts";

const servers: ServerHandle[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

async function start(app: Webfw): Promise<ServerHandle> {
  const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
  servers.push(server);
  return server;
}

async function until(what: string, ms: number, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

describe("jobs on the in-memory queue", () => {
  test("request.enqueue over HTTP runs the job with its data, id and attempt; the start says it is in memory", async () => {
    const lines: string[] = [];
    logger.setSink((line) => lines.push(line));
    try {
      const app = new Webfw(import.meta.path);
      const seen: unknown[] = [];
      app.job<{ to: string }>("mail", (data, job) => {
        seen.push({ data, id: job.id, name: job.name, attempt: job.attempt, aborted: job.signal.aborted });
      });
      app.post("/signup", async (request) => ({ job: await request.enqueue("mail", request.json()) }));
      const server = await start(app);
      expect(lines.some((line) => line.includes("jobs: in-memory queue (no Redis)"))).toBe(true);
      const answer = await fetch(`${server.url}/signup`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ to: "a@example.com" }),
      });
      expect(answer.status).toBe(200);
      const { job } = (await answer.json()) as { job: string };
      await until("the job", 2000, () => seen.length === 1);
      expect(seen[0]).toEqual({
        data: { to: "a@example.com" },
        id: job,
        name: "mail",
        attempt: 1,
        aborted: false,
      });
    } finally {
      logger.setSink(stderrSink);
    }
  });

  test("a failing job is retried with backoff, then kept as failed and listed by failedJobs", async () => {
    const app = new Webfw(import.meta.path);
    const attempts: number[] = [];
    const times: number[] = [];
    app.job(
      "flaky",
      (_data, job) => {
        attempts.push(job.attempt);
        times.push(Date.now());
        throw new Error(`boom ${job.attempt}`);
      },
      { retries: 2, backoff: { type: "exponential", delayMs: 50 } },
    );
    await start(app);
    const id = await app.enqueue("flaky", { n: 1 });
    await until("three attempts", 3000, () => attempts.length === 3);
    await Bun.sleep(50);
    expect(attempts).toEqual([1, 2, 3]);
    // Exponential: 50 ms, then 100 ms.
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(45);
    expect((times[2] as number) - (times[1] as number)).toBeGreaterThanOrEqual(95);
    const failed = await app.failedJobs("flaky");
    expect(failed.length).toBe(1);
    expect(failed[0]).toMatchObject({ id, name: "flaky", data: { n: 1 }, error: "boom 3", attempts: 3 });
    expect(failed[0]?.failedAt).toBeInstanceOf(Date);
  });

  test("a run past timeoutMs fails with JobTimeoutError and its signal is aborted", async () => {
    const app = new Webfw(import.meta.path);
    let signal: AbortSignal | null = null;
    app.job(
      "slow",
      async (_data, job) => {
        signal = job.signal;
        await Bun.sleep(2000);
      },
      { timeoutMs: 100 },
    );
    await start(app);
    await app.enqueue("slow", null);
    await until("the failure", 3000, () => signal?.aborted === true);
    await Bun.sleep(20);
    const [failed] = await app.failedJobs("slow");
    expect(failed?.error).toBe("job slow took longer than 100 ms");
  });

  test("concurrency bounds the runs at once; delay holds a job back; an id already queued is not queued twice", async () => {
    const app = new Webfw(import.meta.path);
    let running = 0;
    let most = 0;
    const done: number[] = [];
    app.job<number>(
      "batch",
      async (n) => {
        running++;
        most = Math.max(most, running);
        await Bun.sleep(30);
        running--;
        done.push(n);
      },
      { concurrency: 2 },
    );
    // Enqueued before the server starts: kept, run once it does.
    for (let n = 0; n < 6; n++) await app.enqueue("batch", n);
    await start(app);
    await until("six runs", 3000, () => done.length === 6);
    expect(most).toBe(2);

    const started = Date.now();
    await app.enqueue("batch", 100, { delay: 200, id: "once" });
    expect(await app.enqueue("batch", 101, { id: "once" })).toBe("once");
    await until("the delayed run", 3000, () => done.includes(100));
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    await Bun.sleep(100);
    expect(done.includes(101)).toBe(false);
  });

  test("metrics count enqueued, completed and failed jobs and cron runs", async () => {
    const app = new Webfw(import.meta.path, { metrics: true });
    app.job("counted", (n: unknown) => {
      if (n === 0) throw new Error("no");
    });
    let ticks = 0;
    app.cron("*/1 * * * * *", () => void ticks++, { name: "metered" });
    const server = await start(app);
    await app.enqueue("counted", 0);
    await app.enqueue("counted", 1);
    await until("a tick", 2500, () => ticks >= 1);
    await Bun.sleep(50);
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(/webfw_jobs_total\{job="counted",outcome="enqueued"\} [2-9]/);
    expect(text).toMatch(/webfw_jobs_total\{job="counted",outcome="completed"\} [1-9]/);
    expect(text).toMatch(/webfw_jobs_total\{job="counted",outcome="failed"\} [1-9]/);
    expect(text).toMatch(/webfw_job_duration_seconds_count\{job="counted"\} [1-9]/);
    expect(text).toMatch(/webfw_cron_runs_total\{cron="metered",outcome="completed"\} [1-9]/);
  });

  test("refuses malformed options when registered", () => {
    const app = new Webfw(import.meta.path);
    const fn = () => {};
    expect(() => app.job("bad name", fn)).toThrow(TypeError);
    expect(() => app.job("a:b", fn)).toThrow(TypeError);
    expect(() => app.job("x", fn, { concurrency: 0 })).toThrow("concurrency must be an integer >= 1");
    expect(() => app.job("x", fn, { retries: -1 })).toThrow("retries must be an integer >= 0");
    expect(() => app.job("x", fn, { timeoutMs: 1.5 })).toThrow("timeoutMs must be an integer >= 0");
    expect(() => app.job("x", fn, { backoff: { type: "linear" as "fixed", delayMs: 1 } })).toThrow(
      "backoff.type",
    );
    expect(() => app.job("x", fn, { lockMs: 10 })).toThrow("lockMs must be an integer >= 1000");
    app.job("x", fn);
    expect(() => app.job("x", fn)).toThrow("a job named 'x' already exists");
    expect(() => app.cron("* * *", fn, { name: "c" })).toThrow("5 fields, or 6 with seconds first");
    expect(() => app.cron("61 * * * *", fn, { name: "c" })).toThrow("invalid cron schedule");
    expect(() => app.cron("* * * * *", fn, { name: "c", timezone: "Mars/Olympus" })).toThrow(
      "unknown time zone 'Mars/Olympus'",
    );
    expect(() => app.cron("* * * * *", fn, {} as { name: string })).toThrow("cron name");
    app.cron("* * * * *", fn, { name: "c", timezone: "Europe/Paris" });
    expect(() => app.cron("* * * * *", fn, { name: "c" })).toThrow("a cron named 'c' already exists");
  });

  test("enqueue refuses an unknown job and malformed options", async () => {
    const app = new Webfw(import.meta.path);
    app.job("known", () => {});
    await expect(app.enqueue("unknown", 1)).rejects.toThrow("no job named 'unknown'");
    await expect(app.enqueue("known", 1, { delay: -5 })).rejects.toThrow("delay must be an integer >= 0");
    await expect(app.enqueue("known", 1, { id: "a:b" })).rejects.toThrow("id must be");
    await expect(app.enqueue("known", () => {})).rejects.toThrow();
    await expect(app.failedJobs("unknown")).rejects.toThrow("no job named 'unknown'");
  });
});

describe("cron without Redis", () => {
  test("runs every tick in this process, a run at a time, with the tick it is for; missed ticks are skipped", async () => {
    const app = new Webfw(import.meta.path);
    const ticks: number[] = [];
    let overlapping = 0;
    let running = 0;
    app.cron(
      "*/1 * * * * *",
      async ({ name, tick }) => {
        expect(name).toBe("every-second");
        running++;
        overlapping = Math.max(overlapping, running);
        ticks.push(tick.getTime());
        // Longer than a tick: the next tick finds it running and is skipped.
        await Bun.sleep(1200);
        running--;
      },
      { name: "every-second" },
    );
    await start(app);
    await until("two runs", 6000, () => ticks.length >= 2);
    expect(overlapping).toBe(1);
    for (const tick of ticks) expect(tick % 1000).toBe(0);
    expect((ticks[1] as number) - (ticks[0] as number)).toBe(2000);
  }, 10_000);

  test("the in-process client never runs schedules or jobs", async () => {
    const app = new Webfw(import.meta.path);
    let ran = 0;
    app.cron("*/1 * * * * *", () => void ran++, { name: "never" });
    app.get("/", () => "ok");
    expect(await (await app.request("/")).text()).toBe("ok");
    await Bun.sleep(1100);
    expect(ran).toBe(0);
  });
});

describe("tracing", () => {
  afterEach(() => {
    trace.disable();
    propagation.disable();
    context.disable();
  });

  test("a job's span is a child of the request that enqueued it; a cron run has its own span", async () => {
    const exporter = new InMemorySpanExporter();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(
      new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
    );
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const app = new Webfw(import.meta.path, { tracing: true });
    let ran = false;
    app.job("traced", () => {
      ran = true;
    });
    app.post("/go", async (request) => ({ id: await request.enqueue("traced", {}) }));
    let ticked = false;
    app.cron(
      "*/1 * * * * *",
      () => {
        ticked = true;
      },
      { name: "traced-tick" },
    );
    const server = await start(app);
    const answer = await fetch(`${server.url}/go`, { method: "POST" });
    expect(answer.status).toBe(200);
    await until("the job", 2000, () => ran);
    await Bun.sleep(20);
    const spans = exporter.getFinishedSpans();
    const request = spans.find((span) => span.name === "POST /go");
    const job = spans.find((span) => span.name === "job traced");
    expect(request).toBeDefined();
    expect(job?.spanContext().traceId).toBe(request?.spanContext().traceId as string);
    expect(job?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId as string);
    expect(job?.attributes["messaging.destination.name"]).toBe("traced");
    await until("a tick", 2500, () => ticked);
    await Bun.sleep(20);
    const cron = exporter.getFinishedSpans().find((span) => span.name === "cron traced-tick");
    expect(cron?.attributes["webfw.cron.name"]).toBe("traced-tick");
    expect(cron?.parentSpanContext).toBeUndefined();
  });
});

describe("tick identity", () => {
  test("a late process names the tick it was planned for, not the second it woke up in", () => {
    const timer = new Cron("*/2 * * * * *", { paused: true });
    // Planned for 10:00:08, woke up 1.8 s late (10:00:09.8): still the 08 tick, as every other machine says.
    expect(new Date(tickOf(timer, Date.parse("2026-01-01T10:00:09.800Z"))).toISOString()).toBe(
      "2026-01-01T10:00:08.000Z",
    );
    expect(new Date(tickOf(timer, Date.parse("2026-01-01T10:00:10.003Z"))).toISOString()).toBe(
      "2026-01-01T10:00:10.000Z",
    );
    timer.stop();
  });
});
