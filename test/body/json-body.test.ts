/**
 * The JSON body contract over real HTTP (docs/requests.md, "Body and json()"), case by case for
 * the cheap decoding of src/http/utf8.ts: text with no U+FFFD is taken as decoded, a text with one
 * is decoded again strictly, so a U+FFFD the client really sent passes and every kind of invalid
 * UTF-8 is a 400. Also the read that continues the pipeline itself (src/serve/dispatch.ts,
 * `bodyStep`): 413, 408 and a wrong Content-Length through the app.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { strictUtf8 } from "../../src/http/utf8.ts";
import type { ServerHandle } from "../../src/index.ts";
import { Webfw } from "../../src/index.ts";
import { startQuiet } from "../helpers/quiet-server.ts";
import { rawRequest } from "../static/raw-http.ts";

let handle: ServerHandle;
let base: string;

beforeAll(async () => {
  const app = new Webfw(import.meta.path, { maxBodySize: 4096, bodyReadTimeoutMs: 300 });
  app.post("/json", (request) => request.json());
  app.post("/kind", ({ body }) => ({
    kind: typeof body === "string" ? "string" : "bytes",
    length: body.length,
  }));
  app.post("/later", async (request) => {
    await Bun.sleep(1);
    return request.json();
  });
  app.post("/throws", () => {
    throw new Error("boom");
  });
  handle = await startQuiet(app);
  base = `http://127.0.0.1:${handle.port}`;
});

afterAll(async () => {
  await handle.stop(true);
});

const encode = (...parts: (string | number[])[]): Uint8Array<ArrayBuffer> =>
  new Uint8Array(
    parts.flatMap((part) => (typeof part === "string" ? [...new TextEncoder().encode(part)] : part)),
  );

const post = (path: string, body: string | Uint8Array<ArrayBuffer>) =>
  fetch(`${base}${path}`, { method: "POST", body, headers: { "content-type": "application/json" } });

describe("valid UTF-8 is parsed", () => {
  test("ASCII, two-, three- and four-byte characters echo as sent", async () => {
    for (const value of [{ a: 1, b: [true, null] }, { s: "héllo € 𝄞 日本" }]) {
      const response = await post("/json", JSON.stringify(value));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(value);
    }
  });

  test("a U+FFFD the client really sent (EF BF BD) passes, here and next to other characters", async () => {
    for (const text of ["\uFFFD", "a\uFFFDb", "é\uFFFD€"]) {
      const response = await post("/json", JSON.stringify({ s: text }));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ s: text });
    }
    const kind = await post("/kind", "\uFFFD");
    expect(await kind.json()).toEqual({ kind: "string", length: 1 });
  });

  test("an answer after an await, from the read's own promise", async () => {
    const response = await post("/later", '{"n":1}');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ n: 1 });
  });
});

describe("invalid UTF-8 is a 400 and request.body is the bytes", () => {
  const cases: [string, Uint8Array<ArrayBuffer>][] = [
    ["0xff 0xfe inside a string", encode('{"s":"', [0xff, 0xfe], '"}')],
    ["a lone continuation byte", encode('{"s":"', [0x80], '"}')],
    ["overlong '/' (C0 AF)", encode('{"s":"', [0xc0, 0xaf], '"}')],
    ["overlong three-byte (E0 80 AF)", encode('{"s":"', [0xe0, 0x80, 0xaf], '"}')],
    ["a UTF-16 surrogate encoded as UTF-8 (ED A0 80)", encode('{"s":"', [0xed, 0xa0, 0x80], '"}')],
    ["past U+10FFFF (F4 90 80 80)", encode('{"s":"', [0xf4, 0x90, 0x80, 0x80], '"}')],
    ["a character cut short at the end (E2 82)", encode('{"s":1}', [0xe2, 0x82])],
    ["a real U+FFFD next to an invalid byte", encode('{"s":"\uFFFD', [0xff], '"}')],
  ];
  for (const [name, body] of cases) {
    test(name, async () => {
      const response = await post("/json", body);
      expect(response.status).toBe(400);
      expect(await response.text()).toBe("invalid JSON body: not valid UTF-8");
      const kind = await post("/kind", body);
      expect(await kind.json()).toEqual({ kind: "bytes", length: body.length });
    });
  }
});

describe("other malformed bodies", () => {
  test("a UTF-8 BOM is kept, so the body is not JSON: 400 (request.body keeps it as U+FEFF)", async () => {
    const body = encode([0xef, 0xbb, 0xbf], '{"a":1}');
    const response = await post("/json", body);
    expect(response.status).toBe(400);
    expect(await response.text()).toStartWith("invalid JSON body: ");
    const kind = await post("/kind", body);
    expect(await kind.json()).toEqual({ kind: "string", length: 8 });
  });

  test("nesting: 128 levels parse, 129 are a 400 with the documented message", async () => {
    const ok = await post("/json", `${"[".repeat(128)}${"]".repeat(128)}`);
    expect(ok.status).toBe(200);
    const deep = await post("/json", `${"[".repeat(129)}${"]".repeat(129)}`);
    expect(deep.status).toBe(400);
    expect(await deep.text()).toBe("JSON nesting deeper than 128 levels");
  });

  test("bad JSON: 400 with the documented message", async () => {
    const response = await post("/json", '{"a":');
    expect(response.status).toBe(400);
    expect(await response.text()).toStartWith("invalid JSON body: ");
  });

  test("over maxBodySize: 413 before the body is read", async () => {
    const reply = await rawRequest(
      handle.port,
      "POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: 4097\r\nConnection: close\r\n\r\n",
    );
    expect(reply.status).toBe(413);
  });

  test("a body shorter than its Content-Length that stalls: 408 after the read timeout", async () => {
    const reply = await rawRequest(
      handle.port,
      'POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\nContent-Type: application/json\r\n\r\n{"a":',
      2000,
    );
    expect(reply.status).toBe(408);
  });

  test("a body longer than its Content-Length: the declared bytes are the body", async () => {
    const reply = await rawRequest(
      handle.port,
      'POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{"a":1}{"b":2}',
      1000,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.startsWith('{"a":1}')).toBe(true);
  });

  test("a handler that throws after the body was read: 500, the server goes on", async () => {
    const response = await post("/throws", "{}");
    expect(response.status).toBe(500);
    expect((await post("/json", "[1]")).status).toBe(200);
  });
});

describe("strictUtf8", () => {
  test("agrees with a fatal TextDecoder on every short byte string of interesting bytes", () => {
    const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    const pool = [
      0x41, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xe0, 0xa0, 0xed, 0xef, 0xbb, 0xbd, 0xf0, 0x90, 0xf4, 0xf5, 0xff,
    ];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let i = 0; i < 50_000; i++) {
      const bytes = new Uint8Array(1 + (next() % 6)).map(() => pool[next() % pool.length] as number);
      let expected: string | null;
      try {
        expected = fatal.decode(bytes);
      } catch {
        expected = null;
      }
      expect(strictUtf8(bytes)).toBe(expected);
    }
  });
});
