/**
 * Combination rows of cron schedules and jobs (docs/jobs.md), behind every layer in every run
 * mode. `jobs`: the route enqueues a job and answers once the job has run, wherever it ran (the
 * job publishes on a topic; with the two-machine mode's Redis it may run on another machine,
 * with `--workers 2` it runs on the pool: the job is `offload`). `cron`: the route waits for the
 * next tick of a cron every second, published by the process that ran it; without Redis only the
 * first process of a machine runs ticks, so another process says so instead.
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
