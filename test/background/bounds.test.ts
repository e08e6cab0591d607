/**
 * The background-task bounds (src/background/tasks.ts, docs/events.md#bounds) with real requests:
 * at most `maxConcurrent` requests' tasks run at once, the next `maxQueued` wait and run later in
 * order, the rest are dropped, logged once (throttled) and counted in /metrics (issue 31).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { backgroundStats } from "../../src/background/tasks.ts";
import { type ServerHandle, Webfw } from "../../src/index.ts";

let server: ServerHandle;
const state = { running: 0, most: 0, done: [] as number[] };

beforeAll(async () => {
  const app = new Webfw(import.meta.path, { background: { maxConcurrent: 4, maxQueued: 8 }, metrics: true });
  app.get("/work/:n", (request) => {
    const n = Number(request.pathParams.n);
    request.background(async () => {
      state.running++;
      state.most = Math.max(state.most, state.running);
      await Bun.sleep(300);
      state.running--;
      state.done.push(n);
    });
    return { accepted: n };
  });
  server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
});

afterAll(async () => {
  await server.stop();
});

describe("background tasks past their bounds", () => {
  test("20 requests at once: 20 answers at once, 4 tasks at a time, 12 run, 8 dropped and counted", async () => {
    const droppedBefore = backgroundStats().dropped;
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => fetch(`${server.url}/work/${n}`).then((r) => r.status)),
    );
    expect(answers).toEqual(Array(20).fill(200));
    // The answers did not wait for the tasks.
    expect(performance.now() - started).toBeLessThan(1_000);
    const deadline = Date.now() + 10_000;
    while (state.done.length < 12 && Date.now() < deadline) await Bun.sleep(50);
    await Bun.sleep(400);
    expect(state.done.length).toBe(12);
    expect(state.most).toBe(4);
    expect(backgroundStats().dropped - droppedBefore).toBe(8);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain("webfw_background_tasks_dropped_total 8");
    expect(metrics).toContain("webfw_background_tasks_running 0");
    expect(metrics).toContain("webfw_background_tasks_queued 0");
  }, 30_000);
});
