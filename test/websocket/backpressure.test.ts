import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import type { WebSocketAdapter } from "../../src/entries/websocket.ts";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { connect, start, within, wsUrl } from "./helpers.ts";

const LIMIT = 256 * 1024;
const CHUNK = "z".repeat(64 * 1024);
const CHUNKS = 300; // 19 MiB: far more than the kernel's socket buffers hold

/** A client that completes the handshake and then stops reading: the slowest reader there is. */
async function stalledClient(server: ServerHandle, path: string): Promise<net.Socket> {
  const socket = net.connect(server.port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
  );
  const head = await new Promise<string>((resolve) =>
    socket.once("data", (chunk) => resolve(chunk.toString("latin1"))),
  );
  expect(head.startsWith("HTTP/1.1 101")).toBe(true);
  socket.pause();
  return socket;
}

/** Sends a masked client frame (opcode 1 text) on a raw socket. */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = Buffer.from([1, 2, 3, 4]);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ (mask[i % 4] as number)));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]);
}

const progress = { sent: 0, maxBuffered: 0, done: false };
const overflow = { closeCode: null as number | null, reason: null as string | null };
const flood = { got: [] as string[], done: false };

describe("backpressure", () => {
  let server: ServerHandle;
  const subscribers: WebSocketAdapter[] = [];

  beforeAll(async () => {
    const app = new Webfw(import.meta.path, {
      openapi: false,
      websocket: { backpressureLimit: LIMIT, maxQueuedMessages: 16, maxQueuedBytes: 64 * 1024 },
    });
    app.websocket("/producer", async (ws) => {
      for (let i = 0; i < CHUNKS; i++) {
        await ws.sendText(CHUNK);
        progress.sent++;
        progress.maxBuffered = Math.max(progress.maxBuffered, ws.bufferedAmount);
      }
      progress.done = true;
      await ws.receiveText();
    });
    app
      .websocket("/careless", async (ws) => {
        // Sends nobody awaits pile up in the framework, not without bound: the connection closes.
        for (let i = 0; i < CHUNKS; i++) void ws.sendText(CHUNK);
        await ws.receiveText();
      })
      .onClose((ws) => {
        overflow.closeCode = ws.closeCode;
        overflow.reason = ws.closeReason;
      });
    app.websocket("/slow-handler", async (ws) => {
      await Bun.sleep(300); // the client floods meanwhile; the inbox pauses the socket
      for (;;) {
        const message = await ws.receiveText();
        if (message === "end") break;
        flood.got.push(message);
      }
      flood.done = true;
      await ws.sendText(String(flood.got.length));
    });
    app.websocket("/room", async (ws) => {
      subscribers.push(ws);
      await ws.receiveText();
    });
    server = await start(app);
  });
  afterAll(async () => {
    await server.stop(true);
  });

  test("a handler that awaits its sends waits for a slow reader; the buffer stays bounded", async () => {
    const socket = await stalledClient(server, "/producer");
    try {
      await Bun.sleep(700);
      expect(progress.done).toBe(false);
      expect(progress.sent).toBeLessThan(CHUNKS);
      // Bun's buffer never grows past the limit plus the one message that crossed it.
      expect(progress.maxBuffered).toBeLessThanOrEqual(LIMIT + CHUNK.length + 1024);
      // The reader catches up: everything is delivered and the handler finishes.
      socket.on("data", () => {});
      socket.resume();
      for (let i = 0; i < 500 && !progress.done; i++) await Bun.sleep(10);
      expect(progress.sent).toBe(CHUNKS);
    } finally {
      socket.destroy();
    }
  });

  test("sends nobody awaits close the connection with 1008 once they pass the limit", async () => {
    const socket = await stalledClient(server, "/careless");
    try {
      for (let i = 0; i < 300 && overflow.closeCode === null; i++) await Bun.sleep(10);
      expect(overflow.closeCode).toBe(1008);
      expect(overflow.reason).toBe("send buffer full");
    } finally {
      socket.destroy();
    }
  });

  test("a flood of messages to a busy handler pauses reading and loses nothing", async () => {
    const client = await connect(wsUrl(server, "/slow-handler"));
    const count = 5000;
    for (let i = 0; i < count; i++) client.send(`m${i}`);
    client.send("end");
    expect(await client.next(10_000)).toBe(String(count));
    expect(flood.got.length).toBe(count);
    expect(flood.got[0]).toBe("m0");
    expect(flood.got[count - 1]).toBe(`m${count - 1}`);
    expect(flood.got.every((message, i) => message === `m${i}`)).toBe(true);
    client.close();
  });

  test("a subscriber that cannot keep up with broadcasts is dropped; the others get every message", async () => {
    const fast = await connect(wsUrl(server, "/room"));
    const slow = await stalledClient(server, "/room");
    try {
      for (let i = 0; i < 50 && subscribers.length < 2; i++) await Bun.sleep(10);
      const sender = subscribers[0] as WebSocketAdapter;
      let received = 0;
      fast.raw.addEventListener("message", () => received++);
      for (let i = 0; i < 200; i++) {
        await sender.broadcast(CHUNK);
        if (i % 10 === 0) await Bun.sleep(1);
      }
      await within(
        (async () => {
          while (received < 200) await Bun.sleep(10);
        })(),
        10_000,
        "delivery to the fast subscriber",
      );
      expect(received).toBe(200);
      const dropped = subscribers[1] as WebSocketAdapter;
      for (let i = 0; i < 100 && dropped.isOpen; i++) await Bun.sleep(10);
      expect(dropped.isOpen).toBe(false);
      slow.write(textFrame("ignored")); // writing to a dropped connection does not crash the server
    } finally {
      slow.destroy();
      fast.close();
    }
  });
});
