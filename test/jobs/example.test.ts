/**
 * examples/jobs.ts on a real server with two handler Workers, without Redis (the in-memory
 * queue): a signup's mail is sent by its job, a mail that keeps failing is retried then listed as
 * failed, the CPU-bound job runs on a pool Worker, the cron ticks, metrics count it all.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import app, { cleanups, outbox } from "../../examples/jobs.ts";
import type { ServerHandle } from "../../src/index.ts";
import { logger, stderrSink } from "../../src/log/logger.ts";

let server: ServerHandle;
const lines: string[] = [];
beforeAll(async () => {
  logger.setSink((line) => void lines.push(line));
  server = await app.start({ port: 0, host: "127.0.0.1", workers: 2, accessLog: false });
});
afterAll(async () => {
  await server.stop();
  logger.setSink(stderrSink);
});

async function until<T>(
  what: string,
  ms: number,
  probe: () => T | undefined | Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

const post = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

test("a signup answers 201 at once and its mail job runs", async () => {
  const answer = await post("/signup", { email: "ada@example.com" });
  expect(answer.status).toBe(201);
  const { job } = (await answer.json()) as { job: string };
  expect(job).toMatch(/^\d+$/);
  await until("the mail", 2000, () => outbox.find((mail) => mail.to === "ada@example.com"));
  expect(await (await fetch(`${server.url}/outbox`)).json()).toContainEqual({
    to: "ada@example.com",
    attempt: 1,
  });
  expect(lines.some((line) => line.includes("jobs: in-memory queue (no Redis)"))).toBe(true);
});

test("a malformed signup is refused (422, 400) and queues nothing", async () => {
  const answer = await post("/signup", { email: 5 });
  expect(answer.status).toBe(422);
  const bad = await fetch(`${server.url}/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{",
  });
  expect(bad.status).toBe(400);
  expect(outbox.length).toBe(1);
});

test("a mail that keeps failing is retried 3 times, then listed as failed", async () => {
  expect((await post("/signup", { email: "bob@down.example" })).status).toBe(201);
  // 200 + 400 + 800 ms of backoff.
  const failed = await until("the failed job", 4000, async () => {
    const list = (await (await fetch(`${server.url}/jobs/welcome-mail/failed`)).json()) as unknown[];
    return list.length > 0 ? list : undefined;
  });
  expect(failed[0]).toMatchObject({
    data: { to: "bob@down.example" },
    error: "SMTP refused bob@down.example",
    attempts: 4,
  });
});

test("the CPU-bound job runs on a pool Worker", async () => {
  const messages = app.subscribe("word-counts");
  const answer = await post("/documents", { text: "one two  three" });
  expect(answer.status).toBe(202);
  const next = await messages.next();
  expect(JSON.parse(next.value as string)).toEqual({ words: 3, onWorker: true });
  await messages.return?.();
});

test("the cron ticks, and metrics count jobs and runs", async () => {
  await until("a cleanup", 6000, () => (cleanups.length > 0 ? cleanups : undefined));
  expect(cleanups[0]).toMatch(/:[0-5][05]\.000Z$/);
  // The offloaded job's reply may still be on its way from the Worker.
  const text = await until("the word count's completion", 3000, async () => {
    const body = await (await fetch(`${server.url}/metrics`)).text();
    return /webfw_jobs_total\{job="word-count",outcome="completed"\} 1/.test(body) ? body : undefined;
  });
  expect(text).toMatch(/webfw_jobs_total\{job="welcome-mail",outcome="completed"\} [1-9]/);
  expect(text).toMatch(/webfw_jobs_total\{job="welcome-mail",outcome="retried"\} 3/);
  expect(text).toMatch(/webfw_jobs_total\{job="word-count",outcome="completed"\} [1-9]/);
  expect(text).toMatch(/webfw_cron_runs_total\{cron="cleanup",outcome="completed"\} [1-9]/);
}, 10_000);
