import { describe, expect, test } from "bun:test";
import { WebSocketDisconnect } from "../../src/response/errors.ts";
import { Inbox } from "../../src/websocket/inbox.ts";
import {
  checkBroadcastOptions,
  resolveWebSocketOptions,
  WEBSOCKET_DEFAULTS,
} from "../../src/websocket/options.ts";
import { Outbox } from "../../src/websocket/outbox.ts";
import { topicOf } from "../../src/websocket/topic.ts";
import { isSendableCloseCode } from "../../src/websocket/websocket.ts";

function flow() {
  const calls: string[] = [];
  return { calls, control: { pause: () => calls.push("pause"), resume: () => calls.push("resume") } };
}

describe("Inbox", () => {
  test("hands a message straight to a waiting receive, else queues in order", async () => {
    const { control } = flow();
    const inbox = new Inbox(control, 10, 1000);
    const waiting = inbox.next();
    inbox.push("a");
    expect(await waiting).toBe("a");
    inbox.push("b");
    inbox.push(new Uint8Array([1]));
    expect(await inbox.next()).toBe("b");
    expect(await inbox.next()).toEqual(new Uint8Array([1]));
  });

  test("pauses at the message bound and resumes once half is read", async () => {
    const { calls, control } = flow();
    const inbox = new Inbox(control, 4, 1_000_000);
    for (let i = 0; i < 4; i++) inbox.push(`m${i}`);
    expect(calls).toEqual(["pause"]);
    inbox.push("m4"); // already read by the socket: still queued, no second pause
    expect(calls).toEqual(["pause"]);
    expect(inbox.size).toBe(5);
    await inbox.next();
    await inbox.next();
    expect(calls).toEqual(["pause"]);
    await inbox.next(); // 2 left = half of 4
    expect(calls).toEqual(["pause", "resume"]);
  });

  test("pauses at the byte bound", () => {
    const { calls, control } = flow();
    const inbox = new Inbox(control, 1000, 10);
    inbox.push("12345");
    expect(calls).toEqual([]);
    inbox.push(new Uint8Array(5));
    expect(calls).toEqual(["pause"]);
  });

  test("after the end, queued messages are still delivered, then WebSocketDisconnect", async () => {
    const { control } = flow();
    const inbox = new Inbox(control, 10, 1000);
    inbox.push("last words");
    inbox.end(new WebSocketDisconnect(4000, "bye"));
    inbox.push("ignored");
    expect(await inbox.next()).toBe("last words");
    const error = await inbox.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebSocketDisconnect);
    expect((error as WebSocketDisconnect).code).toBe(4000);
  });

  test("the end fails every waiting receive", async () => {
    const { control } = flow();
    const inbox = new Inbox(control, 10, 1000);
    const first = inbox.next();
    const second = inbox.next();
    inbox.end(new WebSocketDisconnect(1001, ""));
    await expect(first).rejects.toBeInstanceOf(WebSocketDisconnect);
    await expect(second).rejects.toBeInstanceOf(WebSocketDisconnect);
  });

  test("a long queue read in order keeps its order across compaction", async () => {
    const { control } = flow();
    const inbox = new Inbox(control, 100_000, 100_000_000);
    for (let i = 0; i < 5000; i++) inbox.push(String(i));
    for (let i = 0; i < 3000; i++) expect(await inbox.next()).toBe(String(i));
    for (let i = 5000; i < 6000; i++) inbox.push(String(i));
    for (let i = 3000; i < 6000; i++) expect(await inbox.next()).toBe(String(i));
    expect(inbox.size).toBe(0);
  });
});

/** A fake socket whose buffer fills by what is sent and empties when the test says so. */
function fakeSocket(limit: number) {
  const sent: string[] = [];
  let buffered = 0;
  return {
    sent,
    target: {
      send(data: string | Uint8Array | ArrayBuffer) {
        if (buffered > limit) return 0;
        sent.push(String(data));
        buffered += typeof data === "string" ? data.length : data.byteLength;
        return -1;
      },
      getBufferedAmount: () => buffered,
    },
    flush() {
      buffered = 0;
    },
  };
}

describe("Outbox", () => {
  test("writes at once under the limit; past it, sends wait for drain and keep their order", async () => {
    const socket = fakeSocket(10);
    let overflowed = false;
    const outbox = new Outbox(socket.target, 10, () => {
      overflowed = true;
    });
    await outbox.send("aaaaaaaaaa"); // 10 bytes: the buffer is now at the limit
    let secondDone = false;
    const second = outbox.send("b").then(() => {
      secondDone = true;
    });
    await Bun.sleep(1);
    expect(secondDone).toBe(false);
    expect(socket.sent).toEqual(["aaaaaaaaaa"]);
    socket.flush();
    outbox.drain();
    await second;
    expect(socket.sent).toEqual(["aaaaaaaaaa", "b"]);
    expect(overflowed).toBe(false);
  });

  test("one awaited message larger than the limit is fine; a pile-up of unawaited ones overflows", async () => {
    const socket = fakeSocket(4);
    let overflows = 0;
    const outbox = new Outbox(socket.target, 4, () => overflows++);
    await outbox.send("x".repeat(4));
    void outbox.send("y".repeat(100)); // waits: buffer at limit; alone, so no overflow
    expect(overflows).toBe(0);
    void outbox.send("z"); // a second waiting message while over the limit
    expect(overflows).toBe(1);
  });

  test("after the end, waiting and new sends reject with WebSocketDisconnect, without unhandled rejections", async () => {
    const socket = fakeSocket(1);
    const outbox = new Outbox(socket.target, 1, () => {});
    await outbox.send("ab");
    const waiting = outbox.send("c");
    outbox.end(new WebSocketDisconnect(1006, ""));
    await expect(waiting).rejects.toBeInstanceOf(WebSocketDisconnect);
    await expect(outbox.send("d")).rejects.toBeInstanceOf(WebSocketDisconnect);
    void outbox.send("nobody awaits this"); // must not crash the test process
    await Bun.sleep(1);
  });

  test("limit 0 means no limit", async () => {
    const socket = fakeSocket(Number.POSITIVE_INFINITY);
    const outbox = new Outbox(socket.target, 0, () => {
      throw new Error("no overflow without a limit");
    });
    for (let i = 0; i < 100; i++) await outbox.send("0123456789");
    expect(socket.sent.length).toBe(100);
  });
});

describe("options", () => {
  test("defaults", () => {
    expect(resolveWebSocketOptions()).toEqual(WEBSOCKET_DEFAULTS);
    expect(resolveWebSocketOptions({ idleTimeout: undefined }).idleTimeout).toBe(120);
    expect(resolveWebSocketOptions({ maxPayloadLength: 1024 }).maxPayloadLength).toBe(1024);
  });

  test("bad values are refused with the option's name", () => {
    expect(() => resolveWebSocketOptions({ maxPayloadLength: 0 })).toThrow("maxPayloadLength");
    expect(() => resolveWebSocketOptions({ maxPayloadLength: 1.5 })).toThrow("maxPayloadLength");
    expect(() => resolveWebSocketOptions({ backpressureLimit: -1 })).toThrow("backpressureLimit");
    expect(() => resolveWebSocketOptions({ idleTimeout: 961 })).toThrow("idleTimeout");
    expect(() => resolveWebSocketOptions({ maxQueuedMessages: 0 })).toThrow("maxQueuedMessages");
    expect(() => resolveWebSocketOptions({ perMessageDeflate: "yes" as unknown as boolean })).toThrow(
      "perMessageDeflate",
    );
    expect(() => resolveWebSocketOptions(null as unknown as object)).toThrow(TypeError);
  });

  test("broadcast options", () => {
    expect(checkBroadcastOptions({ redisUrl: "redis://127.0.0.1:6379" })).toEqual({
      redisUrl: "redis://127.0.0.1:6379",
      channel: "webfw:broadcast",
    });
    expect(checkBroadcastOptions({ redisUrl: "rediss://h:1", channel: "app1" }).channel).toBe("app1");
    expect(() => checkBroadcastOptions({ redisUrl: "" })).toThrow("redisUrl");
    expect(() => checkBroadcastOptions({ redisUrl: "redis://h", channel: "" })).toThrow("channel");
    expect(() => checkBroadcastOptions(undefined as unknown as { redisUrl: string })).toThrow(TypeError);
  });
});

describe("topics and close codes", () => {
  test("a topic is the pattern plus the decoded path parameters", () => {
    expect(topicOf("/chat", [], {})).toBe("webfw:ws:/chat");
    const a = topicOf("/chat/:room", ["room"], { room: "a" });
    expect(a).not.toBe(topicOf("/chat/:room", ["room"], { room: "b" }));
    expect(a).toBe(topicOf("/chat/:room", ["room"], { room: "a" }));
    // A parameter value cannot forge another route's or another parameter split's topic.
    const topics = new Set(
      [
        { a: "1", b: "2" },
        { a: "1\u0000", b: "2" },
        { a: "1", b: "\u00002" },
        { a: '1","', b: "2" },
        { a: "1", b: '","2' },
      ].map((params) => topicOf("/x/:a/:b", ["a", "b"], params)),
    );
    expect(topics.size).toBe(5);
  });

  test("sendable close codes", () => {
    for (const code of [1000, 1001, 1003, 1007, 1008, 1011, 1014, 3000, 4999])
      expect(isSendableCloseCode(code)).toBe(true);
    for (const code of [0, 999, 1004, 1005, 1006, 1015, 2000, 5000, 1000.5])
      expect(isSendableCloseCode(code)).toBe(false);
  });
});
