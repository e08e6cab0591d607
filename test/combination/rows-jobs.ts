/**
 * Combination rows of cron schedules and jobs (docs/jobs.md), behind every layer in every run
 * mode. `jobs`: the route enqueues a job and answers once the job has run, wherever it ran (the
 * job publishes on a topic; with the two-machine mode's Redis it may run on another machine,
 * with `--workers 2` it runs on the pool: the job is `offload`). `cron`: the route answers with a
 * tick of a cron every second, published by the process that ran it and received within the last
 * 1.5 s (else it waits for the next); without Redis only the first process of a machine runs
 * ticks, so another process says so instead.
 */
import { expect } from "bun:test";
import { CHILD_INDEX_ENV, isSupervisedChild } from "../../src/process/env.ts";
import { type Feature, featurePath, httpExchange } from "./table.ts";

/** The next message `match` accepts, or `null` once the subscription's signal ended it. */
async function nextMessage(
  messages: AsyncIterableIterator<string>,
  match: (text: string) => boolean,
): Promise<string | null> {
  for await (const text of messages) if (match(text)) return text;
  return null;
}

/** A cron every second: a tick received within this long says the cron is running now. */
const FRESH_TICK_MS = 1_500;

export const JOBS_ROWS: Feature[] = [
  {
    name: "jobs",
    register(app, ctx) {
      app.job<{ token: string; user: string }>(
        "combo-job",
        ({ token, user }) => {
          app.publish("combo-jobs", { token, user });
        },
        { offload: true },
      );
      app.post(
        featurePath("jobs"),
        async (request) => {
          await ctx.guard(request);
          const token = crypto.randomUUID();
          const user = (request.identity?.claims.user as string | undefined) ?? "anonymous";
          // Subscribed before enqueuing: the job's message cannot be missed.
          const messages = app.subscribe("combo-jobs", AbortSignal.timeout(5_000));
          const id = await request.enqueue("combo-job", { token, user });
          const text = await nextMessage(messages, (message) => message.includes(token));
          await messages.return?.();
          return { ran: text !== null, id: typeof id, user: text === null ? null : JSON.parse(text).user };
        },
        // Enqueued on the thread that serves (an in-memory queue is not a Worker's); the job itself is offloaded.
        { ...ctx.routeOptions, offload: false },
      );
    },
    exchange: (base, init) => httpExchange(base, featurePath("jobs"), init, { method: "POST" }),
    verify(result) {
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ ran: true, id: "string", user: "ada" });
    },
  },
  {
    name: "cron",
    register(app, ctx) {
      // The latest tick, kept by one subscription the first request opens: a cell answers with a
      // tick received within the last FRESH_TICK_MS instead of waiting up to a second for the next
      // one on each of its calls (a request that finds none waits for the next, as the first does).
      let latest: { tick: string; at: number } | null = null;
      let watching = false;
      const watchTicks = () => {
        if (watching) return;
        watching = true;
        void (async () => {
          for await (const tick of app.subscribe("combo-cron")) latest = { tick, at: performance.now() };
        })();
      };
      app.cron(
        "*/1 * * * * *",
        ({ tick }) => {
          app.publish("combo-cron", tick.toISOString());
        },
        { name: "combo-cron" },
      );
      app.get(
        featurePath("cron"),
        async (request) => {
          await ctx.guard(request);
          const ticksHere =
            process.env.REDIS_URL !== undefined ||
            !isSupervisedChild() ||
            (process.env[CHILD_INDEX_ENV] ?? "0") === "0";
          if (!ticksHere) return { tick: "first process only" };
          watchTicks();
          // A tick this process received less than a tick ago: the cron is running now.
          if (latest !== null && performance.now() - latest.at < FRESH_TICK_MS) return { tick: latest.tick };
          const messages = app.subscribe("combo-cron", AbortSignal.timeout(3_000));
          const tick = await nextMessage(messages, () => true);
          await messages.return?.();
          return { tick };
        },
        { ...ctx.routeOptions, offload: false, timeoutMs: 5_000 },
      );
    },
    exchange: (base, init) => httpExchange(base, featurePath("cron"), init),
    verify(result) {
      expect(result.status).toBe(200);
      const { tick } = JSON.parse(result.body) as { tick: string | null };
      // A tick is to the second; or, without Redis, this request reached a process that runs none.
      expect(tick === "first process only" || /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/.test(tick ?? "")).toBe(
        true,
      );
    },
    skip: { "request-timeout": "waits up to a second for a tick, longer than the suite's route time limit" },
  },
];
