/**
 * Broadcast across processes: a real `redis-server` (Debian package
 * `redis-server`; CI installs it) and two server processes of the chat
 * example. Without redis-server the suite is skipped with the reason printed, and fails under
 * CI=true (test/helpers/system-program.ts).
 */

import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { Webfw } from "../../src/index.ts";
import { freePort } from "../cli/helpers.ts";
import { startRedis } from "../helpers/redis.ts";
import { describeWithProgram } from "../helpers/system-program.ts";
import { connect, start, type TestClient, within, wsUrl } from "./helpers.ts";

const CHAT_APP = join(import.meta.dir, "../../examples/chat/app.ts");

/** Reads a child's stdout until a line matches; fails with what it printed otherwise. */
async function waitForLine(
  proc: Subprocess<"ignore", "pipe", "pipe">,
  pattern: RegExp,
  ms = 15_000,
): Promise<string> {
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + ms;
  try {
    while (Date.now() < deadline) {
      const chunk = await within(reader.read(), deadline - Date.now(), "the child's output").catch(
        () => null,
      );
      if (chunk === null || chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
      const match = text.match(pattern);
      if (match) return match[1] ?? match[0];
    }
  } finally {
    reader.releaseLock();
  }
  const stderr = await new Response(proc.stderr).text().catch(() => "");
  throw new Error(`no line matching ${pattern} from the child; stdout: ${text}; stderr: ${stderr}`);
}

interface ChatEvent {
  type: string;
  name?: string;
  from?: string;
  text?: string;
}

describeWithProgram("redis-server", "apt-get install -y redis-server", "broadcast through Redis", () => {
  let redis: Subprocess | null = null;
  let redisUrl = "";
  let redisPort = 0;
  const servers: Subprocess<"ignore", "pipe", "pipe">[] = [];
  const urls: string[] = [];
  const clients: TestClient[] = [];
  const channel = `webfw:test:${crypto.randomUUID()}`;

  beforeAll(async () => {
    const started = await startRedis();
    redis = started.process;
    redisPort = started.port;
    redisUrl = started.url;

    for (let i = 0; i < 2; i++) {
      const proc = Bun.spawn([process.execPath, CHAT_APP], {
        env: {
          ...process.env,
          REDIS_URL: redisUrl,
          CHAT_CHANNEL: channel,
          WEBFW_PORT: "0",
          WEBFW_HOST: "127.0.0.1",
        },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      servers.push(proc);
      urls.push(await waitForLine(proc, /chat listening on (http:\/\/\S+)/));
    }
  }, 30_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    for (const proc of servers) proc.kill("SIGTERM");
    await Promise.all(
      servers.map((proc) => within(proc.exited, 10_000, "a chat process exiting").catch(() => proc.kill(9))),
    );
    redis?.kill("SIGTERM");
    await redis?.exited;
  }, 20_000);

  const joinAt = async (index: number, room: string, name: string) => {
    const url = `${(urls[index] as string).replace(/^http/, "ws")}/chat/${room}?name=${name}`;
    const client = await connect(url);
    clients.push(client);
    return client;
  };
  const nextEvent = async (client: TestClient) => JSON.parse(String(await client.next())) as ChatEvent;
  /** The next event that is not `skip` (skipped at most once). */
  const skipping = async (client: TestClient, skip: ChatEvent) => {
    const event = await nextEvent(client);
    return JSON.stringify(event) === JSON.stringify(skip) ? nextEvent(client) : event;
  };

  test("two processes really are two servers", () => {
    expect(urls.length).toBe(2);
    expect(urls[0]).not.toBe(urls[1]);
  });

  test("a broadcast on one process reaches clients of the other, exactly once everywhere", async () => {
    const ada = await joinAt(0, "lobby", "ada");
    expect((await nextEvent(ada)).type).toBe("welcome");
    expect(await nextEvent(ada)).toEqual({ type: "join", name: "ada" });

    const bob = await joinAt(1, "lobby", "bob");
    expect((await nextEvent(bob)).type).toBe("welcome");
    // Ada's join may still be on its way through Redis when bob connects: he may or may not see it.
    expect(await skipping(bob, { type: "join", name: "ada" })).toEqual({ type: "join", name: "bob" });
    // Bob's join was broadcast by process 2: ada, on process 1, gets it through Redis.
    expect(await nextEvent(ada)).toEqual({ type: "join", name: "bob" });

    const other = await joinAt(1, "elsewhere", "cy");
    await nextEvent(other);
    await nextEvent(other);

    ada.send("hello from process one");
    expect(await nextEvent(ada)).toMatchObject({
      type: "message",
      from: "ada",
      text: "hello from process one",
    });
    expect(await skipping(bob, { type: "join", name: "ada" })).toMatchObject({
      type: "message",
      from: "ada",
      text: "hello from process one",
    });
    bob.send("and back from process two");
    for (const client of [ada, bob]) {
      expect(await nextEvent(client)).toMatchObject({
        type: "message",
        from: "bob",
        text: "and back from process two",
      });
    }

    // No duplicates (a process ignores its own messages coming back from Redis), no leak to other rooms.
    await Bun.sleep(300);
    expect(ada.pending()).toBe(0);
    expect(bob.pending()).toBe(0);
    expect(other.pending()).toBe(0);
  });

  test("many messages keep their order across processes", async () => {
    const sender = await joinAt(0, "burst", "s");
    const receiver = await joinAt(1, "burst", "r");
    for (const client of [sender, receiver]) expect((await nextEvent(client)).type).toBe("welcome");
    for (let i = 0; i < 100; i++) sender.send(`n${i}`);
    // Joins race with the connections (s's join may still be on its way through Redis): skip them.
    const chatLines = async (client: TestClient) => {
      for (;;) {
        const event = await nextEvent(client);
        if (event.type === "message") return event.text;
        expect(event.type).toBe("join");
      }
    };
    for (let i = 0; i < 100; i++) expect(await chatLines(receiver)).toBe(`n${i}`);
    for (let i = 0; i < 100; i++) expect(await chatLines(sender)).toBe(`n${i}`);
  });

  test("after Redis restarts, broadcasts flow again, still exactly once", async () => {
    const a = await joinAt(0, "restart", "a");
    const b = await joinAt(1, "restart", "b");
    for (const client of [a, b]) expect((await nextEvent(client)).type).toBe("welcome");
    redis?.kill("SIGKILL");
    await redis?.exited;
    await Bun.sleep(200);
    redis = (await startRedis(redisPort)).process;
    // Until both processes have reconnected and renewed their subscriptions, b may miss lines.
    let through = false;
    for (let i = 0; i < 60 && !through; i++) {
      a.send(`probe ${i}`);
      const message = await b.next(250).catch(() => null);
      through = message !== null && (JSON.parse(String(message)) as ChatEvent).type === "message";
    }
    expect(through).toBe(true);
    await Bun.sleep(300);
    while (b.pending() > 0) await b.next();
    while (a.pending() > 0) await a.next();
    a.send("after the restart");
    expect(await nextEvent(b)).toMatchObject({ type: "message", text: "after the restart" });
    expect(await nextEvent(a)).toMatchObject({ type: "message", text: "after the restart" });
    await Bun.sleep(300);
    expect([a.pending(), b.pending()]).toEqual([0, 0]);
  }, 40_000);

  test("an unreachable Redis makes start() fail with a clear message", async () => {
    const app = new Webfw(import.meta.path, { openapi: false });
    app.configureBroadcast({ redisUrl: `redis://user:secret@127.0.0.1:${freePort()}` });
    app.websocket("/ws", () => {});
    const error = await start(app).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain("cannot use Redis");
    expect((error as Error).message).not.toContain("secret");
  });

  test("in one process, configureBroadcast still delivers locally exactly once", async () => {
    const app = new Webfw(import.meta.path, { openapi: false });
    app.configureBroadcast({ redisUrl, channel: `${channel}:local` });
    app.websocket("/room", async (ws) => {
      for await (const message of ws) await ws.broadcast(String(message));
    });
    const server = await start(app);
    try {
      const a = await connect(wsUrl(server, "/room"));
      const b = await connect(wsUrl(server, "/room"));
      a.send("once");
      expect(await a.next()).toBe("once");
      expect(await b.next()).toBe("once");
      await Bun.sleep(200);
      expect([a.pending(), b.pending()]).toEqual([0, 0]);
      a.close();
      b.close();
    } finally {
      await server.stop(true);
    }
  });
});
