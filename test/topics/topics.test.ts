/**
 * Issue #14, topics: `app.publish(topic, data)` from any HTTP handler (inline
 * or in the worker pool) reaches WebSocket clients that `ws.subscribe(topic)`
 * and `app.subscribe(topic)` SSE streams; a WebSocket route's own topic is
 * publishable too. Across two processes through a real redis-server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import app from "../../examples/topics.ts";
import type { ServerHandle } from "../../src/index.ts";
import { launchProgram, type Program } from "../faults/spawn.ts";
import { startRedis } from "../helpers/redis.ts";
import { describeWithProgram } from "../helpers/system-program.ts";
import { connect, type TestClient } from "../websocket/helpers.ts";

const EXAMPLE = join(import.meta.dir, "../../examples/topics.ts");

/** An SSE client: the events as they arrive. */
async function openFeed(base: string) {
  const controller = new AbortController();
  const res = await fetch(`${base}/feed`, { signal: controller.signal });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const nextEvent = async (ms = 5000): Promise<{ event: string; data: string }> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
        const data = /^data: (.*)$/m.exec(block)?.[1] ?? "";
        if (block.startsWith(":")) continue;
        return { event, data };
      }
      if (Date.now() > deadline) throw new Error("no SSE event in time");
      const { value, done } = await reader.read();
      if (done) throw new Error("feed ended");
      buffer += decoder.decode(value, { stream: true });
    }
  };
  return { nextEvent, close: () => controller.abort() };
}

const postNote = (base: string, text: string) =>
  fetch(`${base}/notes`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ text }),
  });

for (const workers of [1, 2]) {
  describe(`one process${workers > 1 ? ", --workers 2 (publish from a Worker)" : ""}`, () => {
    let server: ServerHandle;
    let base: string;
    beforeAll(async () => {
      server = await app.start({
        port: 0,
        host: "127.0.0.1",
        accessLog: false,
        handleSignals: false,
        workers,
      });
      base = server.url;
    });
    afterAll(() => server.stop(true));

    test("an HTTP handler publishes; WebSocket and SSE subscribers receive", async () => {
      const ws = await connect(`${base.replace("http", "ws")}/live/lobby`);
      expect(await ws.nextJson()).toMatchObject({ room: "lobby" });
      const feed = await openFeed(base);
      expect((await feed.nextEvent()).event).toBe("ready");
      const created = await postNote(base, "first");
      expect(created.status).toBe(201);
      const wsNote = (await ws.nextJson()) as { text: string };
      expect(wsNote.text).toBe("first");
      const sseNote = await feed.nextEvent();
      expect(sseNote.event).toBe("note");
      expect(JSON.parse(sseNote.data)).toMatchObject({ text: "first" });
      ws.close();
      feed.close();
    });

    test("a route's own topic: publish to one room only", async () => {
      const lobby = await connect(`${base.replace("http", "ws")}/live/lobby`);
      const other = await connect(`${base.replace("http", "ws")}/live/other`);
      await lobby.next();
      await other.next();
      const res = await fetch(`${base}/rooms/lobby/announce`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text: "doors open" }),
      });
      expect(res.status).toBe(204);
      expect(await lobby.next()).toBe("doors open");
      await Bun.sleep(100);
      expect(other.pending()).toBe(0);
      lobby.close();
      other.close();
    });

    test("a closed SSE stream leaves no subscriber; WebSockets keep receiving", async () => {
      const ws = await connect(`${base.replace("http", "ws")}/live/x`);
      await ws.next();
      const feed = await openFeed(base);
      await feed.nextEvent();
      expect(app.topicHub().subscriberCount("notes")).toBe(1);
      feed.close();
      await Bun.sleep(100);
      await postNote(base, "after close");
      expect((await ws.nextJson<{ text: string }>()).text).toBe("after close");
      expect(app.topicHub().subscriberCount("notes")).toBe(0);
      ws.close();
    });
  });
}

describeWithProgram("redis-server", "apt-get install -y redis-server", "two processes through Redis", () => {
  let redis: Subprocess;
  const programs: Program[] = [];
  const clients: TestClient[] = [];
  beforeAll(async () => {
    const started = await startRedis();
    redis = started.process;
    const env = { REDIS_URL: started.url };
    programs.push(await launchProgram(EXAMPLE, [], { env }), await launchProgram(EXAMPLE, [], { env }));
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) client.close();
    for (const program of programs) await program.stop();
    redis?.kill();
  });

  test("a note posted to one process reaches the WebSocket and SSE clients of both", async () => {
    const [a, b] = programs as [Program, Program];
    const wsB = await connect(`${b.url.replace("http", "ws")}/live/lobby`);
    const wsA = await connect(`${a.url.replace("http", "ws")}/live/lobby`);
    clients.push(wsA, wsB);
    await wsA.next();
    await wsB.next();
    const feedB = await openFeed(b.url);
    await feedB.nextEvent();
    const created = await postNote(a.url, "across");
    expect(created.status).toBe(201);
    const from = ((await created.json()) as { pid: number }).pid;
    for (const ws of [wsA, wsB]) expect(await ws.nextJson()).toMatchObject({ text: "across", pid: from });
    const sse = await feedB.nextEvent();
    expect(JSON.parse(sse.data)).toMatchObject({ text: "across", pid: from });
    feedB.close();
    // A room announcement posted to B reaches the room's clients on A.
    await fetch(`${b.url}/rooms/lobby/announce`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "from b" }),
    });
    expect(await wsA.next()).toBe("from b");
    expect(await wsB.next()).toBe("from b");
  }, 30_000);
});
