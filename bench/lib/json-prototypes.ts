/**
 * The `POST /json` prototypes of docs/performance.md ("Issue 32, third pass: POST /json"), picked
 * by `BENCH_JSON_PROTO` on webfw's json scenario and counted by the gate:
 * `bun bench/gate.ts --only json --env BENCH_JSON_PROTO=<name>`. Each takes one part of the echo
 * away, so that counts side by side say what that part costs.
 */
import type { Request } from "../../src/index.ts";

type Handler = (request: Request) => unknown;

/** The bench's body, as an object: an answer with no parse behind it. */
const PARSED = { id: 42, name: "bench", tags: ["a", "b", "c"], nested: { ok: true, ratio: 0.5 } };
const utf8Slice = (
  Buffer.prototype as unknown as { utf8Slice: (this: Uint8Array, start: number, end: number) => string }
).utf8Slice;
const latin1Slice = (
  Buffer.prototype as unknown as { latin1Slice: (this: Uint8Array, start: number, end: number) => string }
).latin1Slice;
const { isAscii } = require("node:buffer") as { isAscii: (bytes: Uint8Array) => boolean };
const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export interface JsonPrototype {
  handler: Handler;
  /** Leave the body to the handler (`body: "stream"`): the framework's read skipped. */
  stream: boolean;
}

export const JSON_PROTOTYPES: Record<string, JsonPrototype> = {
  /** Bun's read of a `body: "stream"` route, no parse, a constant answer. */
  "stream-bytes-const": { stream: true, handler: (request) => request.raw.bytes().then(() => PARSED) },
  /** Bun's read, Bun's `Buffer` decoder and `JSON.parse`: the parse in JavaScript without the framework's read. */
  "stream-bytes-parse": {
    stream: true,
    handler: (request) =>
      request.raw.bytes().then((bytes) => JSON.parse(utf8Slice.call(bytes, 0, bytes.length))),
  },
  /** No read at all (`body: "stream"`, the body left unread), a constant answer: the POST shell alone. */
  "stream-const": { stream: true, handler: (request) => (request.raw === null ? null : PARSED) },
  /** The framework's read, no parse, a constant answer. */
  "read-const": { stream: false, handler: () => PARSED },
  /** The framework's read, `request.body` (strict UTF-8) and a plain `JSON.parse`. */
  "read-parse-plain": { stream: false, handler: (request) => JSON.parse(request.body as string) },
  /** The framework's read, `request.body` (the strict decode) only, a constant answer: the decode's share. */
  "read-body-const": { stream: false, handler: (request) => (request.body === "" ? null : PARSED) },
  /** The framework's read, `request.json()` (decode, checks, parse), a constant answer: what echoing the parsed object adds. */
  "read-json-const": { stream: false, handler: (request) => (request.json() === null ? null : PARSED) },
  /** The framework's read, `isAscii` then `latin1Slice` (an 8-bit string) and `JSON.parse`. */
  "read-latin1-parse": {
    stream: false,
    handler: (request) => {
      const bytes = request.bodyBytes;
      if (!isAscii(bytes)) throw new Error("not ASCII");
      return JSON.parse(latin1Slice.call(bytes, 0, bytes.length));
    },
  },
  /** The framework's read, a fatal `TextDecoder` and `JSON.parse`. */
  "read-td-parse": { stream: false, handler: (request) => JSON.parse(fatal.decode(request.bodyBytes)) },
  /**
   * The framework's read, then Bun's JSON reader on the bytes (`new Response(bytes).json()`, settled
   * at once, `Bun.peek`): the idea of parsing natively from bytes, measured and dropped.
   */
  "read-native-parse": {
    stream: false,
    handler: (request) =>
      Bun.peek(new globalThis.Response(request.bodyBytes as Uint8Array<ArrayBuffer>).json()),
  },
};
