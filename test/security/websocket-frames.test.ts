/**
 * Hand-made WebSocket frames after a real upgrade (RFC 6455): every protocol
 * violation ends in a close frame with the right code (1002 protocol error,
 * 1007 bad data, 1009 too big) and a closed TCP connection; the handler's own
 * bad-input errors close with 1007/1008; the server keeps serving HTTP and
 * WebSockets. Handshakes that are not WebSocket handshakes get a 4xx.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { logger } from "../../src/log/logger.ts";
import { Results, startQuiet } from "./helpers.ts";
import { rawExchange, rawGet } from "./raw-client.ts";
import { closeCode, closeFrame, type Frame, frame, rawWebSocket } from "./raw-websocket.ts";

const MAX_PAYLOAD = 1024;
const results = new Results("websocket-frames");
let server: ServerHandle;
let errorSpy: ReturnType<typeof spyOn>;

beforeAll(async () => {
  errorSpy = spyOn(logger, "error");
  const app = new Webfw(import.meta.path, { websocket: { maxPayloadLength: MAX_PAYLOAD } });
  app.get("/", () => "ok");
  app.websocket("/echo", async (ws) => {
    for await (const message of ws) {
      if (typeof message === "string") await ws.sendText(message);
      else await ws.sendBytes(message);
    }
  });
  app.websocket("/json", async (ws) => {
    for (;;) await ws.sendJson(await ws.receiveJson());
  });
  app.websocket("/text-only", async (ws) => {
    for (;;) await ws.sendText(await ws.receiveText());
  });
  server = await startQuiet(app);
});
afterAll(async () => {
  errorSpy.mockRestore();
  await server.stop(true);
  results.write();
});

const utf8 = new TextDecoder();
const text = (f: Frame) => utf8.decode(f.payload);

/** Sends the frames and collects what comes back until the server's close frame (or it hangs up). */
async function exchange(path: string, frames: Uint8Array[]) {
  const ws = await rawWebSocket(server.port, path);
  expect(ws.status).toBe(101);
  for (const f of frames) ws.send(f);
  const received: Frame[] = [];
  for (;;) {
    const f = await ws.nextFrame(3000);
    if (f === null) break;
    received.push(f);
    if (f.opcode === 0x8) break;
  }
  await Promise.race([ws.closed, Bun.sleep(3000)]);
  const tcpClosed = ws.isClosed();
  ws.end();
  const close = received.find((f) => f.opcode === 0x8) ?? null;
  return {
    received,
    close,
    code: close ? closeCode(close) : null,
    reason: close ? text(close).slice(2) : "",
    tcpClosed,
  };
}

async function stillServes(): Promise<boolean> {
  const http = await rawGet(server.port, "/");
  const ws = await exchange("/echo", [frame(0x1, "still here"), closeFrame(1000)]);
  return http.status === 200 && ws.received[0] !== undefined && text(ws.received[0]) === "still here";
}

const VIOLATIONS: { name: string; path?: string; frames: Uint8Array[]; code: number; reason?: string }[] = [
  {
    name: "unmasked client frame",
    frames: [frame(0x1, "hello", { mask: false })],
    code: 1002,
    reason: "masked",
  },
  { name: "reserved data opcode 0x3", frames: [frame(0x3, "x")], code: 1002, reason: "opcode" },
  { name: "reserved control opcode 0xB", frames: [frame(0xb, "x")], code: 1002, reason: "opcode" },
  {
    name: "RSV1 set without an extension",
    frames: [frame(0x1, "x", { rsv: 4 })],
    code: 1002,
    reason: "RSV1",
  },
  {
    name: "declared length 2^40 (far over maxPayloadLength)",
    frames: [frame(0x2, new Uint8Array(16), { declaredLength: 2 ** 40 })],
    code: 1009,
  },
  {
    name: "declared length 2^63 (64-bit length with the top bit set)",
    frames: [frame(0x2, new Uint8Array(16), { declaredLength: 2 ** 63 })],
    code: 1009,
  },
  {
    name: `real payload of ${MAX_PAYLOAD * 2} bytes`,
    frames: [frame(0x2, new Uint8Array(MAX_PAYLOAD * 2))],
    code: 1009,
  },
  {
    name: "fragments adding up over maxPayloadLength",
    frames: [frame(0x1, "a".repeat(800), { fin: false }), frame(0x0, "b".repeat(800))],
    code: 1009,
  },
  {
    name: "text frame with invalid UTF-8 (0xff 0xfe)",
    frames: [frame(0x1, new Uint8Array([0xff, 0xfe, 0x41]))],
    code: 1007,
    reason: "UTF-8",
  },
  {
    name: "text frame with overlong UTF-8 (0xc0 0xae)",
    frames: [frame(0x1, new Uint8Array([0xc0, 0xae]))],
    code: 1007,
  },
  {
    name: "text frame with a UTF-16 surrogate (0xed 0xa0 0x80)",
    frames: [frame(0x1, new Uint8Array([0xed, 0xa0, 0x80]))],
    code: 1007,
  },
  { name: "continuation frame with nothing to continue", frames: [frame(0x0, "x")], code: 1002 },
  {
    name: "new text frame inside a fragmented message",
    frames: [frame(0x1, "a", { fin: false }), frame(0x1, "b")],
    code: 1002,
  },
  { name: "fragmented control frame", frames: [frame(0x9, "x", { fin: false })], code: 1002 },
  {
    name: "ping with 126 bytes (control frames max 125)",
    frames: [frame(0x9, new Uint8Array(126))],
    code: 1002,
  },
  { name: "close frame with code 999", frames: [closeFrame(999)], code: 1002 },
  { name: "close frame with a 1-byte payload", frames: [frame(0x8, new Uint8Array([3]))], code: 1002 },
  {
    name: "close frame with a reason that is not UTF-8",
    frames: [frame(0x8, new Uint8Array([3, 232, 0xff]))],
    code: 1007,
  },
  {
    name: "receiveJson: invalid JSON",
    path: "/json",
    frames: [frame(0x1, "{nope")],
    code: 1007,
    reason: "invalid JSON",
  },
  {
    name: "receiveJson: JSON nested 200 deep",
    path: "/json",
    frames: [frame(0x1, `${"[".repeat(200)}${"]".repeat(200)}`)],
    code: 1007,
    reason: "128",
  },
];

describe("protocol violations close the connection with the RFC 6455 code", () => {
  for (const v of VIOLATIONS) {
    test(v.name, async () => {
      const outcome = await exchange(v.path ?? "/echo", v.frames);
      const survived = await stillServes();
      results.add({
        group: "WebSocket frames",
        input: v.name,
        outcome: `close ${outcome.code}${outcome.tcpClosed ? ", TCP closed" : ""}`,
        survived,
      });
      expect(outcome.code).toBe(v.code);
      if (v.reason) expect(outcome.reason).toContain(v.reason);
      expect(outcome.tcpClosed).toBe(true);
      expect(survived).toBe(true);
    });
  }

  test("a well-formed exchange still works (the frames above are really what break it)", async () => {
    const outcome = await exchange("/echo", [
      frame(0x1, "hel", { fin: false }),
      frame(0x0, "lo"),
      frame(0x2, new Uint8Array([1, 2, 3])),
      closeFrame(1000),
    ]);
    expect(outcome.received.slice(0, 2).map((f) => f.opcode)).toEqual([0x1, 0x2]);
    expect(text(outcome.received[0] as Frame)).toBe("hello");
    expect(outcome.code).toBe(1000);
  });

  test("a binary message that is not UTF-8, read as text by the handler, closes with 1007", async () => {
    const outcome = await exchange("/text-only", [frame(0x2, new Uint8Array([0xff, 0x00]))]);
    const survived = await stillServes();
    results.add({
      group: "WebSocket frames",
      input: "binary frame (not UTF-8) to a handler reading text",
      outcome: `close ${outcome.code}`,
      survived,
    });
    expect(outcome.code).toBe(1007);
    expect(outcome.reason).toContain("UTF-8");
    expect(survived).toBe(true);
  });

  test("a client that vanishes without a close frame is cleaned up", async () => {
    const ws = await rawWebSocket(server.port, "/echo");
    ws.send(frame(0x1, "half", { fin: false }));
    ws.end();
    await ws.closed;
    expect(await stillServes()).toBe(true);
  });
});

describe("handshakes that are not valid WebSocket upgrades", () => {
  const upgrade = (path: string, headers: string, method = "GET") =>
    `${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${headers}\r\n`;
  const KEY = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
  const cases: [string, string, number][] = [
    ["no Sec-WebSocket-Key", upgrade("/echo", "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"), 400],
    [
      "a key that is not 16 bytes of base64",
      upgrade("/echo", "Upgrade: websocket\r\nSec-WebSocket-Key: x\r\nSec-WebSocket-Version: 13\r\n"),
      400,
    ],
    [
      "Sec-WebSocket-Version 8",
      upgrade("/echo", `Upgrade: websocket\r\n${KEY}Sec-WebSocket-Version: 8\r\n`),
      426,
    ],
    ["plain GET on a WebSocket path", upgrade("/echo", ""), 426],
    [
      "POST with Upgrade: websocket",
      upgrade(
        "/echo",
        `Upgrade: websocket\r\n${KEY}Sec-WebSocket-Version: 13\r\nContent-Length: 0\r\n`,
        "POST",
      ),
      405,
    ],
    [
      "upgrade on an HTTP-only path",
      upgrade("/", `Upgrade: websocket\r\n${KEY}Sec-WebSocket-Version: 13\r\n`),
      200,
    ],
    [
      "upgrade on an unknown path",
      upgrade("/nope", `Upgrade: websocket\r\n${KEY}Sec-WebSocket-Version: 13\r\n`),
      404,
    ],
  ];
  for (const [name, request, status] of cases) {
    test(name, async () => {
      const reply = await rawExchange(server.port, request);
      const survived = (await rawGet(server.port, "/")).status === 200;
      results.add({ group: "WebSocket handshake", input: name, outcome: String(reply.status), survived });
      expect(reply.status).toBe(status);
      expect(survived).toBe(true);
    });
  }
});

describe("the log", () => {
  test("no unhandled error was logged", () => {
    expect(errorSpy).not.toHaveBeenCalled();
  });
});
