/**
 * `offload: true` jobs on the worker pool (docs/jobs.md, "CPU-bound handlers"): the handler runs
 * on a Worker thread, not the serving thread; an error there fails the job with its message; a
 * synchronous loop past `timeoutMs` has its Worker replaced, and the pool keeps running jobs.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { ServerHandle } from "../../src/index.ts";
import app from "./fixtures/offload-app.ts";

let server: ServerHandle;
beforeAll(async () => {
  server = await app.start({ port: 0, host: "127.0.0.1", workers: 2, accessLog: false });
});
afterAll(async () => {
  await server.stop();
});

async function failedOf(name: string) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const list = await app.failedJobs(name);
    if (list.length > 0 || Date.now() > deadline) return list;
    await Bun.sleep(25);
  }
}

test("the handler runs on a Worker thread with its data and context", async () => {
  const messages = app.subscribe("squares");
  await app.enqueue("square", { n: 7 });
  const message = JSON.parse((await messages.next()).value as string);
  await messages.return?.();
  expect(message).toMatchObject({ n: 7, square: 49, attempt: 1, name: "square" });
  expect(message.threadId).toBeGreaterThan(0);
});

test("an error on the Worker fails the job with its message", async () => {
  await app.enqueue("throws-on-worker", null);
  const [failed] = await failedOf("throws-on-worker");
  expect(failed?.error).toMatch(/^refused on thread [1-9]\d*$/);
});

test("a synchronous loop past timeoutMs: its Worker is replaced and the pool still runs jobs", async () => {
  await app.enqueue("spin", null);
  const [failed] = await failedOf("spin");
  expect(failed?.error).toBe("job spin took longer than 300 ms (its Worker was replaced)");
  const messages = app.subscribe("squares");
  await app.enqueue("square", { n: 3 });
  expect(JSON.parse((await messages.next()).value as string)).toMatchObject({ square: 9 });
  await messages.return?.();
});
