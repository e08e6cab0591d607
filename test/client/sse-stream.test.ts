/**
 * The client's event-stream reader, fed by hand: line ends of every kind and split
 * across chunks, comments, unknown and malformed fields, ids with NUL, retry that is
 * not a number, an event left unfinished at the end, multi-byte characters split
 * across chunks; and what it reads from webfw's own `sse()` output.
 */
import { describe, expect, test } from "bun:test";
import { SseParser, SseStream } from "../../src/client/index.ts";
import { formatSseEvent } from "../../src/stream/sse.ts";

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks)
        controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

async function read(chunks: (string | Uint8Array)[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const message of new SseStream(streamOf(chunks))) out.push(message);
  return out;
}

describe("SseParser", () => {
  test("fields, comments, unknown fields, a colon-less line, one leading space removed", () => {
    const parser = new SseParser();
    const lines = [": comment", "event: note", "data:  two spaces", "id: 7", "bogus: x", "data", ""];
    const results = lines.map((line) => parser.line(line));
    expect(results.slice(0, -1).every((result) => result === null)).toBe(true);
    expect(results.at(-1)).toEqual({
      event: "note",
      data: " two spaces\n",
      lastEventId: "7",
      retry: undefined,
    });
  });

  test("a blank line without data dispatches nothing and resets the event type", () => {
    const parser = new SseParser();
    parser.line("event: lonely");
    expect(parser.line("")).toBeNull();
    parser.line("data: x");
    expect(parser.line("")).toMatchObject({ event: "message", data: "x" });
  });

  test("an id with NUL is ignored; retry only as digits; the last id sticks", () => {
    const parser = new SseParser();
    for (const line of ["id: 1", "retry: 3000", "data: a"]) parser.line(line);
    expect(parser.line("")).toMatchObject({ lastEventId: "1", retry: 3000 });
    for (const line of ["id: 2\u0000", "retry: 5s", "retry: -1", "data: b"]) parser.line(line);
    expect(parser.line("")).toMatchObject({ lastEventId: "1", retry: 3000 });
    parser.line("data: c");
    expect(parser.line("")).toMatchObject({ lastEventId: "1", data: "c" });
  });

  test("data: JSON objects and arrays parsed, broken JSON and other text kept as text", () => {
    const parser = new SseParser();
    const data = (text: string) => {
      parser.line(`data: ${text}`);
      return parser.line("")?.data;
    };
    expect(data('{"a":1}')).toEqual({ a: 1 });
    expect(data("[1,2]")).toEqual([1, 2]);
    expect(data("{broken")).toBe("{broken");
    expect(data("42")).toBe("42");
    expect(data('"quoted"')).toBe('"quoted"');
  });
});

describe("SseStream", () => {
  test("LF, CRLF and CR line ends, also split across chunks", async () => {
    expect(await read(["data: a\n\n", "data: b\r\n\r\n", "data: c\r\rdata: d\n", "\n"])).toMatchObject([
      { data: "a" },
      { data: "b" },
      { data: "c" },
      { data: "d" },
    ]);
    // A CRLF whose CR ends one chunk and LF opens the next is one line end, not two.
    expect(await read(["data: x\r", "\ndata: y\r\n\r", "\n"])).toMatchObject([{ data: "x\ny" }]);
    // A CR at a chunk's end followed by a blank line's LF: both count.
    expect(await read(["data: p\r", "\n\n"])).toMatchObject([{ data: "p" }]);
  });

  test("a line split anywhere, a multi-byte character split across chunks", async () => {
    const bytes = new TextEncoder().encode("data: héllo €\n\n");
    const chunks = [...bytes].map((byte) => new Uint8Array([byte]));
    expect(await read(chunks)).toMatchObject([{ data: "héllo €" }]);
  });

  test("an event left unfinished when the stream ends is dropped", async () => {
    expect(await read(["data: done\n\n", "data: cut off"])).toMatchObject([{ data: "done" }]);
    expect(await read([])).toEqual([]);
  });

  test("reads what webfw's sse() writes, line breaks in data included", async () => {
    const frames = [
      formatSseEvent({ event: "note", id: "9", data: { text: "two\nlines" } }),
      formatSseEvent("plain\r\ntext"),
      formatSseEvent({ retry: 10, data: [1] }),
    ];
    expect(await read([frames.join("")])).toEqual([
      { event: "note", data: { text: "two\nlines" }, lastEventId: "9", retry: undefined },
      { event: "message", data: "plain\ntext", lastEventId: "9", retry: undefined },
      { event: "message", data: [1], lastEventId: "9", retry: 10 },
    ]);
  });
});
