/**
 * Scheduled and durable jobs (docs/jobs.md). A cron schedule runs once per tick across every
 * process and machine sharing the app's Redis; jobs enqueued by requests run on BullMQ there,
 * survive a process that dies, are retried with backoff, and are kept when they fail for good.
 * Without `REDIS_URL` the same app runs on the in-memory queue, for development (said at start).
 *
 *   REDIS_URL=redis://127.0.0.1:6379 bun examples/jobs.ts --processes 2 --workers 2
 *   curl -X POST localhost:8080/signup -H 'content-type: application/json' -d '{"email":"ada@example.com"}'
 *   curl localhost:8080/outbox                     # the welcome mail, once the job ran (this process's view)
 *   curl -X POST localhost:8080/documents -H 'content-type: application/json' -d '{"text":"a b c"}'
 *   curl localhost:8080/jobs/welcome-mail/failed   # mails that failed every retry
 *   curl localhost:8080/metrics | grep webfw_jobs  # enqueued, completed, failed, retried
 */
import { isMainThread } from "node:worker_threads";
import { t, Webfw } from "../src/index.ts";

const app = new Webfw(import.meta.path, { metrics: true });
// One Redis URL for everything shared: WebSocket broadcast, MCP sessions, cron claims and jobs.
if (process.env.REDIS_URL) app.configureBroadcast({ redisUrl: process.env.REDIS_URL });

/** Stands for a mail service: slow, and down for some addresses. */
export const outbox: { to: string; attempt: number }[] = [];

app.job<{ to: string }>(
  "welcome-mail",
  async ({ to }, job) => {
    await Bun.sleep(50);
    if (to.endsWith("@down.example")) throw new Error(`SMTP refused ${to}`);
    outbox.push({ to, attempt: job.attempt });
  },
  // Up to 3 retries, 200 ms then 400 then 800; a run longer than 10 s fails (and is retried).
  { concurrency: 4, retries: 3, backoff: { type: "exponential", delayMs: 200 }, timeoutMs: 10_000 },
);

// CPU-bound: with --workers N it runs on the worker pool, not on the thread that serves requests.
// A Worker has its own memory, so the result goes out as a topic message (WebSockets, `subscribe`).
app.job<{ text: string }>(
  "word-count",
  ({ text }) => {
    const words = text.split(/\s+/).filter(Boolean).length;
    app.publish("word-counts", { words, onWorker: !isMainThread });
    return words;
  },
  { offload: true, timeoutMs: 5_000 },
);

// Every 5 seconds, once across the cluster (a real app: "0 3 * * *", nightly at 03:00).
export const cleanups: string[] = [];
app.cron(
  "*/5 * * * * *",
  ({ tick }) => {
    cleanups.push(tick.toISOString());
  },
  { name: "cleanup", timezone: "UTC" },
);

app.post(
  "/signup",
  async (request) => {
    const { email } = request.parsedBody;
    // Stored (in Redis) before the answer: the mail is sent even if this process dies now.
    const job = await request.enqueue("welcome-mail", { to: email });
    return [{ email, job }, 201];
  },
  { body: t.object({ email: t.str().minLength(3) }) },
);

app.post(
  "/documents",
  async (request) => [{ job: await request.enqueue("word-count", request.parsedBody) }, 202],
  { body: t.object({ text: t.str() }) },
);

app.get("/outbox", () => outbox);
app.get("/jobs/welcome-mail/failed", async () =>
  (await app.failedJobs("welcome-mail", { limit: 20 })).map(({ id, data, error, attempts }) => ({
    id,
    data,
    error,
    attempts,
  })),
);

export default app;

if (import.meta.main) await app.start();
