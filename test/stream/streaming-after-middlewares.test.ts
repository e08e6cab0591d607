/**
 * Issue #14: `sse()` never started when any after-request middleware existed
 * (and `app.cors()` installs one), and a streamed Web `Response` with a
 * textual type was read to its end first. Each case here holds its stream
 * open until the client has seen the first part, so a framework that buffers
 * the body deadlocks and the test fails on its timeout.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ServerHandle, sse, Webfw } from "../../src/index.ts";

let server: ServerHandle;
/** Resolved by the test once the first part arrived; the stream then ends. */
let release: () => void = () => {};
const released = () =>
  new Promise<void>((resolve) => {
    release = resolve;
  });

beforeAll(async () => {
  const app = new Webfw(import.meta.path, { openapi: false });
  app.cors({ origins: ["https://app.example"] });
  app.afterRequest((response) => {
    response.headers.set("x-after", "1");
    response.setCookie("seen", "yes");
    return response;
  });
  app.get("/events", async () => {
    const gate = released();
    return sse(
      (async function* () {
        yield { event: "first", data: "1" };
        await gate;
        yield { event: "second", data: "2" };
      })(),
    );
  });
  app.get("/text-stream", async () => {
    const gate = released();
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode("first\n"));
        await gate;
        controller.enqueue(encoder.encode("second\n"));
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "text/plain; charset=utf-8" } });
  });
  app.get("/generator", async () => {
    const gate = released();
    return (async function* () {
      yield "first\n";
      await gate;
      yield "second\n";
    })();
  });
  server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false, handleSignals: false });
});
afterAll(() => server.stop(true));

async function firstPartThenRest(path: string, first: string) {
  const res = await fetch(`${server.url}${path}`, { headers: { origin: "https://app.example" } });
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes(first)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  expect(text).toContain(first);
  release();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return { res, text };
}

describe("streams flow through CORS and after-middlewares", () => {
  test("sse(): the first event arrives before the generator ends; headers and cookies set after", async () => {
    const { res, text } = await firstPartThenRest("/events", "event: first");
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    expect(res.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(res.headers.get("x-after")).toBe("1");
    expect(res.headers.getSetCookie().some((c) => c.startsWith("seen=yes"))).toBe(true);
    expect(text).toContain("event: second");
  }, 5000);

  test("a streamed Web Response with a text type", async () => {
    const { res, text } = await firstPartThenRest("/text-stream", "first");
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("x-after")).toBe("1");
    expect(text).toBe("first\nsecond\n");
  }, 5000);

  test("an async generator", async () => {
    const { res, text } = await firstPartThenRest("/generator", "first");
    expect(res.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(text).toBe("first\nsecond\n");
  }, 5000);
});
