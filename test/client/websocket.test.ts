/**
 * Typed WebSocket connections of webfw/client (`api.ws`) against a real server: typed
 * send and receive, params and args in the URL, text routes, messages queued before
 * anyone reads, the iteration ending at close, and refused connections (unknown path,
 * an argument that does not convert) rejecting `opened` with the close they got.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Client, client, SocketOpenError } from "../../src/client/index.ts";
import type { ServerHandle } from "../../src/index.ts";
import { startQuiet } from "../helpers/quiet-server.ts";
import * as api from "./fixtures/api.ts";

let server: ServerHandle;
let calls: Client<typeof api>;

beforeAll(async () => {
  server = await startQuiet(api.app);
  calls = client<typeof api>(server.url);
});
afterAll(() => server.stop(true));

describe("api.ws", () => {
  test("typed messages both ways; params and args reach the handler; iteration ends at close", async () => {
    const socket = calls.ws("/chat/:room", { params: { room: "lobby 1" }, args: { name: "ada" } });
    await socket.opened;
    await socket.send({ text: "hello" });
    await socket.send({ text: "again" });
    const first = await socket.receive();
    expect(first).toEqual({ from: "ada", text: "hello", room: "lobby 1", n: 1 });
    const seen: unknown[] = [];
    for await (const message of socket) {
      seen.push(message);
      break; // leaving the loop closes the connection
    }
    expect(seen).toEqual([{ from: "ada", text: "again", room: "lobby 1", n: 2 }]);
    expect((await socket.closed).code).toBe(1000);
    expect(await socket.receive()).toBeUndefined();
  });

  test("messages that arrive before anyone reads are kept, in order", async () => {
    const socket = calls.ws("/chat/:room", { params: { room: "r" } });
    for (let i = 0; i < 5; i++) await socket.send({ text: `m${i}` });
    await Bun.sleep(100);
    const texts: string[] = [];
    for (let i = 0; i < 5; i++) {
      const message = await socket.receive();
      if (message && "text" in message) texts.push(`${message.from}:${message.text}`);
    }
    expect(texts).toEqual(["anonymous:m0", "anonymous:m1", "anonymous:m2", "anonymous:m3", "anonymous:m4"]);
    await socket.close();
  });

  test("schema-declared messages: the client's input type (a default may be left out), checked on the server", async () => {
    const socket = calls.ws("/scores");
    await socket.send({ player: "ada" });
    expect(await socket.receive()).toEqual({ player: "ADA", total: 10 });
    await socket.send({ player: "bob", points: 4 });
    expect(await socket.receive()).toEqual({ player: "BOB", total: 40 });
    // Past the types (as a buggy or hostile client would): the server closes with 1007.
    socket.socket.send(JSON.stringify({ player: "" }));
    const closed = await socket.closed;
    expect(closed.code).toBe(1007);
    expect(closed.reason).toStartWith("invalid message: player: ");
  });

  test("a text route: strings go as they are", async () => {
    const socket = calls.ws("/shout");
    await socket.send("quiet");
    expect(await socket.receive()).toBe("QUIET");
    await socket.close();
  });

  test("malformed input from a client: the server's own error message comes back typed", async () => {
    const socket = calls.ws("/chat/:room", { params: { room: "x" } });
    await socket.opened;
    socket.socket.send("{not json");
    expect(await socket.receive()).toEqual({ error: "not JSON" });
    await socket.close();
  });

  test("a refused upgrade rejects `opened` (unknown path, an argument that does not convert)", async () => {
    const untyped = calls as unknown as { ws(path: string, input?: unknown): { opened: Promise<void> } };
    await expect(untyped.ws("/nowhere").opened).rejects.toBeInstanceOf(SocketOpenError);
    const unreachable = client<typeof api>("http://127.0.0.1:1").ws("/shout");
    await expect(unreachable.opened).rejects.toBeInstanceOf(SocketOpenError);
    expect((await unreachable.closed).wasClean).toBe(false);
  });

  test("headers on the upgrade request (Bun's WebSocket sends them)", async () => {
    const socket = calls.ws("/shout", { headers: { "x-anything": "1" } });
    await socket.opened;
    await socket.close();
  });
});
