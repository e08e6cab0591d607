/**
 * Issue 39: the memory store forgets ended windows on its own (a timer, unref'd), so after a burst
 * of distinct clients its size follows the live clients instead of keeping every dead window until
 * the store is full. Fixed and sliding windows, the store on its own and behind a running app.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { MemoryStore } from "../../src/entries/rate-limit.ts";
import { type ServerHandle, Webfw } from "../../src/index.ts";

const servers: ServerHandle[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop(true);
});

/** Waits until `check()` holds, up to `ms`. */
async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check() && performance.now() < deadline) await Bun.sleep(20);
}

describe("MemoryStore sweeps ended windows", () => {
  test("a burst of 2,000 distinct clients: the store is empty soon after their windows end", async () => {
    const store = new MemoryStore();
    try {
      for (let i = 0; i < 2_000; i++) store.hit(`client-${i}`, 200);
      expect(store.size).toBe(2_000);
      const started = performance.now();
      await until(() => store.size === 0, 2_000);
      expect(store.size).toBe(0);
      // Gone within a window or two of their end, not kept until the store is full.
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      store.close();
    }
  });

  test("live clients stay, ended ones go; a long window ahead of short ones does not hold them", async () => {
    const store = new MemoryStore();
    try {
      store.hit("long", 60_000); // oldest in the map and alive for a minute
      for (let i = 0; i < 500; i++) store.hit(`short-${i}`, 150);
      await until(() => store.size === 1, 1_500);
      expect(store.size).toBe(1);
      // The long window still counts: its second hit is 2 in the same window.
      expect(store.hit("long", 60_000).count).toBe(2);
    } finally {
      store.close();
    }
  });

  test("sliding windows go two windows after they start (the previous count weighs until then)", async () => {
    const store = new MemoryStore();
    try {
      for (let i = 0; i < 1_000; i++) store.hitSliding(`client-${i}`, 150, 5);
      expect(store.size).toBe(1_000);
      await Bun.sleep(200);
      // One window on, the previous counts still weigh: kept.
      expect(store.size).toBe(1_000);
      await until(() => store.size === 0, 1_500);
      expect(store.size).toBe(0);
    } finally {
      store.close();
    }
  });

  test("behind an app: distinct clients' windows are forgotten once the window has passed", async () => {
    const store = new MemoryStore();
    const app = new Webfw(import.meta.path);
    app.rateLimit({ limit: 5, windowMs: 300, store, key: (request) => request.headers.get("x-client") });
    app.get("/", () => "ok");
    const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
    servers.push(server);
    for (let i = 0; i < 200; i++) {
      const response = await fetch(`${server.url}/`, { headers: { "x-client": `c${i}` } });
      expect(response.status).toBe(200);
    }
    expect(store.size).toBe(200);
    await until(() => store.size === 0, 2_000);
    expect(store.size).toBe(0);
  });

  test("the sweep timer never keeps a process alive", async () => {
    const script = `
      import { MemoryStore } from ${JSON.stringify(`${import.meta.dir}/../../src/entries/rate-limit.ts`)};
      const store = new MemoryStore();
      store.hit("a", 3_600_000);
      store.hitSliding("b", 3_600_000, 10);
      console.log("done");
    `;
    const started = performance.now();
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const exited = await Promise.race([child.exited, Bun.sleep(10_000).then(() => "timeout" as const)]);
    if (exited === "timeout") child.kill();
    expect(exited).toBe(0);
    expect(await new Response(child.stdout).text()).toBe("done\n");
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
