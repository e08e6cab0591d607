/**
 * Finding 5 of issue #13: the worker pool kept routing to a hung Worker, so
 * after one handler looped forever, half of the concurrent requests to other
 * routes hung (no timeout) or got 503 (with a timeout) though the other
 * Worker was free. Now the queue is on the main thread and a Worker gets one
 * call at a time: a hang, an endless loop or a crash fails only its own
 * request, with zero innocent requests failing, under concurrent load.
 */
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import type { ServerHandle } from "../../src/index.ts";
import { logger } from "../../src/log/logger.ts";
import { makePoolApp } from "./fixtures/pool-app.ts";
import { Results, startQuiet } from "./helpers.ts";
import { rawGet } from "./raw-client.ts";

const results = new Results("worker-pool");
let handle: ServerHandle | null = null;

afterEach(async () => {
  await handle?.stop(true);
  handle = null;
  results.write();
});

async function start(timeoutMs: number): Promise<ServerHandle> {
  handle = await startQuiet(makePoolApp(timeoutMs), { workers: 2 });
  return handle;
}

/** 20 concurrent innocent requests: every one must be 200. */
async function innocentLoad(port: number): Promise<number[]> {
  const replies = await Promise.all(Array.from({ length: 20 }, () => rawGet(port, "/work/5")));
  return replies.map((r) => r.status);
}

const ALL_OK = Array.from({ length: 20 }, () => 200);

describe("a stuck Worker takes no new work while another is free", () => {
  for (const culprit of ["/loop", "/hang"]) {
    test(`${culprit} without a request timeout: the other Worker serves everything`, async () => {
      const { port, url } = await start(0);
      const stuck = fetch(`${url}${culprit}`, { signal: AbortSignal.timeout(3000) }).catch(() => null);
      await Bun.sleep(100);
      const statuses = await innocentLoad(port);
      results.add({
        group: "worker pool",
        input: `${culprit}, no timeout, 20 innocent`,
        outcome: statuses.join(" "),
      });
      expect(statuses).toEqual(ALL_OK);
      await stuck;
    }, 15_000);

    test(`${culprit} with timeoutMs: 503 for it, its Worker replaced, innocent all 200`, async () => {
      const { port, url } = await start(800);
      const stuck = fetch(`${url}${culprit}`);
      await Bun.sleep(100);
      const statuses = await innocentLoad(port);
      expect(statuses).toEqual(ALL_OK);
      expect((await stuck).status).toBe(503);
      // Both Workers serve again: the replaced one too. A loaded machine may take a while to
      // start the replacement, so pairs are sent until both threads answered (at most 5 s).
      const threads = new Set<number>();
      const until = Date.now() + 5000;
      while (threads.size < 2 && Date.now() < until) {
        await Bun.sleep(20);
        const replies = await Promise.all([fetch(`${url}/work/20`), fetch(`${url}/work/20`)]);
        for (const reply of replies) threads.add(((await reply.json()) as { thread: number }).thread);
      }
      results.add({
        group: "worker pool",
        input: `${culprit}, 800 ms timeout, 20 innocent`,
        outcome: statuses.join(" "),
      });
      expect(threads.size).toBe(2);
    }, 15_000);
  }

  test("both Workers stuck: innocent requests wait in the queue and are served once a Worker is replaced", async () => {
    const { port, url } = await start(2000);
    const stuck = [fetch(`${url}/loop`), fetch(`${url}/hang`)];
    await Bun.sleep(100);
    // Queued behind two stuck Workers: each has its own 2 s deadline from its arrival, the stuck
    // ones are stopped at 2 s, and the queue drains on the new Workers. Sent in a burst after
    // 1.2 s, so the stuck calls' deadlines pass first and the new Workers have 1.2 s to start
    // (a loaded CI machine needs several hundred ms to start a Worker).
    await Bun.sleep(1100);
    const innocent = Array.from({ length: 10 }, () => rawGet(port, "/work/2"));
    expect((await Promise.all(stuck)).map((r) => r.status)).toEqual([503, 503]);
    expect((await Promise.all(innocent)).map((r) => r.status)).toEqual(Array(10).fill(200));
  }, 15_000);
});

describe("crashes and throws fail their own request only", () => {
  test("a Worker that exits mid-request: 500 for it, innocent all 200", async () => {
    const spy = spyOn(logger, "error").mockImplementation(() => {});
    try {
      const { port, url } = await start(0);
      const crash = fetch(`${url}/crash`);
      const statuses = await innocentLoad(port);
      expect((await crash).status).toBe(500);
      expect(statuses).toEqual(ALL_OK);
      // Crash again and again under load: the pool keeps replacing.
      for (let i = 0; i < 3; i++) {
        const [crashed, ...rest] = await Promise.all([
          fetch(`${url}/crash`),
          ...Array.from({ length: 5 }, () => fetch(`${url}/work/2`)),
        ]);
        expect(crashed?.status).toBe(500);
        expect(rest.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      }
      results.add({
        group: "worker pool",
        input: "crash ×4 under load",
        outcome: "500 for the crash, 200 for the rest",
      });
    } finally {
      spy.mockRestore();
    }
  }, 20_000);

  test("a handler that throws: 500 for it, innocent all 200", async () => {
    const spy = spyOn(logger, "error").mockImplementation(() => {});
    try {
      const { port, url } = await start(0);
      const [thrown, statuses] = await Promise.all([fetch(`${url}/throws`), innocentLoad(port)]);
      expect(thrown.status).toBe(500);
      expect(statuses).toEqual(ALL_OK);
    } finally {
      spy.mockRestore();
    }
  });
});
