import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { formatSseEvent, isSseEvent, SseBody, sse } from "../../src/stream/sse.ts";

describe("formatSseEvent", () => {
  test("a string is one data event", () => {
    expect(formatSseEvent("hello")).toBe("data: hello\n\n");
  });

  test("multi-line data: one data line per line, LF, CRLF and CR all split", () => {
    expect(formatSseEvent("a\nb\r\nc\rd")).toBe("data: a\ndata: b\ndata: c\ndata: d\n\n");
    expect(formatSseEvent("trailing\n")).toBe("data: trailing\ndata: \n\n");
    expect(formatSseEvent("")).toBe("data: \n\n");
  });

  test("event, id and retry fields, in that order, before the data", () => {
    expect(formatSseEvent({ data: "x", event: "update", id: "42", retry: 3000 })).toBe(
      "event: update\nid: 42\nretry: 3000\ndata: x\n\n",
    );
  });

  test("objects are JSON: as data of an event, and on their own", () => {
    expect(formatSseEvent({ data: { a: [1, 2] } })).toBe('data: {"a":[1,2]}\n\n');
    expect(formatSseEvent({ user: "ann", n: 1 })).toBe('data: {"user":"ann","n":1}\n\n');
    expect(formatSseEvent({ data: 1, extra: true })).toBe('data: {"data":1,"extra":true}\n\n');
    expect(formatSseEvent([1, "a"])).toBe('data: [1,"a"]\n\n');
    expect(formatSseEvent({ data: null })).toBe("data: null\n\n");
  });

  test("JSON with newlines inside strings stays on one line (escaped)", () => {
    expect(formatSseEvent({ data: { text: "a\nb" } })).toBe('data: {"text":"a\\nb"}\n\n');
  });

  test("line breaks in event and id cannot forge fields", () => {
    const out = formatSseEvent({ data: "x", event: "a\n\ndata: forged", id: "1\r\nevent: evil\u0000" });
    expect(out).toBe("event: adata: forged\nid: 1event: evil\ndata: x\n\n");
    expect(out.split("\n\n")).toHaveLength(2);
  });

  test("an invalid retry is left out", () => {
    expect(formatSseEvent({ data: "x", retry: -1 })).toBe("data: x\n\n");
    expect(formatSseEvent({ data: "x", retry: 1.5 })).toBe("data: x\n\n");
  });

  test("isSseEvent", () => {
    expect(isSseEvent({ data: 1 })).toBe(true);
    expect(isSseEvent({ data: 1, event: "e", id: "i", retry: 1 })).toBe(true);
    expect(isSseEvent({ data: 1, other: 2 })).toBe(false);
    expect(isSseEvent({ event: "e" })).toBe(false);
    expect(isSseEvent("x")).toBe(false);
    expect(isSseEvent(null)).toBe(false);
    expect(isSseEvent([1])).toBe(false);
  });
});

interface Parsed {
  event: string;
  data: string;
  id?: string;
}

/** A minimal EventSource parser (WHATWG rules) over a fetch body. */
async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<Parsed | { comment: string }> {
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let event = "";
  let id: string | undefined;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let nl = buffer.search(/\r\n|\r|\n/);
    while (nl !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + (buffer.startsWith("\r\n", nl) ? 2 : 1));
      if (line === "") {
        if (data.length > 0)
          yield { event: event || "message", data: data.join("\n"), ...(id !== undefined ? { id } : {}) };
        data = [];
        event = "";
      } else if (line.startsWith(":")) yield { comment: line.slice(1).trim() };
      else {
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "data") data.push(value);
        else if (field === "event") event = value;
        else if (field === "id") id = value;
      }
      nl = buffer.search(/\r\n|\r|\n/);
    }
  }
}

describe("sse over HTTP", () => {
  let server: Server<unknown>;
  const state = { finallyRan: false, yielded: 0, stopped: Promise.withResolvers<void>() };

  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request) {
        const path = new URL(request.url).pathname;
        if (path === "/events") {
          return sse(
            (async function* () {
              yield "plain";
              yield { data: "line 1\nline 2", event: "multi", id: "7" };
              yield { kind: "json", n: 1 };
              yield { data: { nested: true }, event: "obj" };
            })(),
            { retry: 2500 },
          ).toResponse(request.signal);
        }
        if (path === "/infinite") {
          state.finallyRan = false;
          state.yielded = 0;
          state.stopped = Promise.withResolvers<void>();
          return sse(
            (async function* () {
              try {
                for (let i = 0; ; i++) {
                  state.yielded++;
                  yield { data: i, id: String(i) };
                  await Bun.sleep(20);
                }
              } finally {
                state.finallyRan = true;
                state.stopped.resolve();
              }
            })(),
          ).toResponse(request.signal);
        }
        if (path === "/slow") {
          return sse(
            (async function* () {
              await Bun.sleep(250);
              yield "late";
            })(),
            { keepAliveMs: 40 },
          ).toResponse(request.signal);
        }
        if (path === "/throws") {
          return sse(
            (async function* () {
              yield "one";
              throw new Error("boom");
            })(),
          ).toResponse(request.signal);
        }
        return new Response("not found", { status: 404 });
      },
    });
  });

  afterAll(() => {
    server.stop(true);
  });

  const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;

  test("headers, retry first, then framed events the client parses back", async () => {
    const response = await fetch(url("/events"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    const text = await response.text();
    expect(text.startsWith("retry: 2500\n\n")).toBe(true);
    const events = [];
    for await (const e of readEvents(new Response(text).body!)) events.push(e);
    expect(events).toEqual([
      { event: "message", data: "plain" },
      { event: "multi", data: "line 1\nline 2", id: "7" },
      { event: "message", data: '{"kind":"json","n":1}', id: "7" },
      { event: "obj", data: '{"nested":true}', id: "7" },
    ]);
  });

  test("the first bytes arrive before the first event (EventSource opens on headers)", async () => {
    const response = await fetch(url("/slow"));
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe(": open\n\n");
    await reader.cancel();
  });

  test("keep-alive comments while the source is slow, then the event", async () => {
    const items = [];
    for await (const e of readEvents((await fetch(url("/slow"))).body!)) items.push(e);
    const comments = items.filter((e) => "comment" in e);
    expect(comments[0]).toEqual({ comment: "open" });
    expect(comments.filter((c) => c.comment === "keep-alive").length).toBeGreaterThanOrEqual(1);
    expect(items.at(-1)).toEqual({ event: "message", data: "late" });
  });

  test("a client disconnect stops the generator (its finally runs)", async () => {
    const controller = new AbortController();
    const response = await fetch(url("/infinite"), { signal: controller.signal });
    const received: string[] = [];
    const reading = (async () => {
      for await (const e of readEvents(response.body!)) {
        if ("data" in e) received.push(e.data);
        if (received.length === 3) controller.abort();
      }
    })().catch(() => {});
    await reading;
    await Promise.race([state.stopped.promise, Bun.sleep(3000)]);
    expect(received).toEqual(["0", "1", "2"]);
    expect(state.finallyRan).toBe(true);
    const count = state.yielded;
    await Bun.sleep(100);
    expect(state.yielded).toBe(count); // nothing runs any more
  });

  test("a source that throws: the events sent arrive, the error is logged, the stream ends cleanly", async () => {
    const logged: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => {
      logged.push(args);
    };
    try {
      const response = await fetch(url("/throws"));
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toBe(": open\n\ndata: one\n\n");
      expect(String(logged.flat())).toContain("boom");
    } finally {
      console.error = original;
    }
  });
});

describe("SseBody without a server", () => {
  test("cancelling the stream calls return() on the source", async () => {
    let returned = false;
    const source: AsyncIterable<string> = {
      [Symbol.asyncIterator]() {
        let i = 0;
        return {
          next: async () => ({ done: false, value: `v${i++}` }),
          return: async () => {
            returned = true;
            return { done: true, value: undefined };
          },
        };
      },
    };
    const response = new SseBody(source, { keepAliveMs: 0 }).toResponse();
    const reader = response.body!.getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    await Bun.sleep(10);
    expect(returned).toBe(true);
  });

  test("an aborted signal closes the stream and stops the source", async () => {
    let finallyRan = false;
    const ac = new AbortController();
    async function* gen() {
      try {
        for (;;) {
          yield "tick";
          await Bun.sleep(5);
        }
      } finally {
        finallyRan = true;
      }
    }
    const response = sse(gen(), { keepAliveMs: 0 }).toResponse(ac.signal);
    const reader = response.body!.getReader();
    await reader.read();
    await reader.read();
    ac.abort();
    for (let i = 0; i < 100 && !finallyRan; i++) await Bun.sleep(5);
    expect(finallyRan).toBe(true);
  });
});
