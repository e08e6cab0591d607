/**
 * Streams keep streaming when after-request middlewares exist (app.cors() installs one):
 * the first chunk reaches the client while the producer is still waiting, whatever the
 * content type, and the middleware can still set headers and cookies.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ServerHandle, sse, Webfw } from "../../src/index.ts";

/** A gate the test opens once the client has seen the first chunk. */
let release: () => void = () => {};
const gate = () =>
  new Promise<void>((resolve) => {
    release = resolve;
  });

const app = new Webfw(import.meta.path);
app.cors({ origins: ["https://app.example"] });
app.afterRequest((response) => {
  response.headers.set("x-after", "yes");
  response.setCookie("seen", "1");
  return response;
});
app.get("/sse", () =>
  sse(
    (async function* () {
      yield { data: "first" };
      await gate();
      yield { data: "second" };
    })(),
  ),
);
app.get("/generator", async function* () {
  yield "first\n";
  await gate();
  yield "second\n";
});
/** A Web Response whose body sends `first`, waits for the gate, then sends `rest`. */
function gatedResponse(first: string, rest: string, type: string): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode(first));
      await gate();
      controller.enqueue(encoder.encode(rest));
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": type } });
}
app.get("/web-ndjson", () => gatedResponse('{"n":1}\n', '{"n":2}\n', "application/x-ndjson"));
app.get("/web-text", () => gatedResponse("first\n", "second\n", "text/plain;charset=utf-8"));
app.get("/buffered", () => "whole body");
app.afterRequest("/buffered", (response) => {
  response.description = `${response.description as string}, seen by middleware`;
  return response;
});

let server: ServerHandle;
beforeAll(async () => {
  server = await app.start({ port: 0 });
});
afterAll(() => server.stop());

async function firstChunkBeforeEnd(path: string, expectFirst: string, expectRest: string) {
  const response = await fetch(`${server.url}${path}`, { headers: { origin: "https://app.example" } });
  expect(response.status).toBe(200);
  expect(response.headers.get("x-after")).toBe("yes");
  expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example");
  expect(response.headers.get("set-cookie")).toStartWith("seen=1");
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let seen = "";
  while (!seen.includes(expectFirst)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`stream ended before ${expectFirst}`);
    seen += decoder.decode(value, { stream: true });
  }
  // The producer is still parked on the gate: what arrived came before the end.
  expect(seen).not.toContain(expectRest);
  release();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
  }
  expect(seen).toContain(expectRest);
  return response;
}

describe("streams through after-middlewares and CORS", () => {
  test("sse(): the first event arrives before the generator ends", async () => {
    const response = await firstChunkBeforeEnd("/sse", "data: first", "data: second");
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
  });
  test("an async generator streams", async () => {
    await firstChunkBeforeEnd("/generator", "first", "second");
  });
  test("a streamed Web Response with a textual type (ndjson) streams", async () => {
    const response = await firstChunkBeforeEnd("/web-ndjson", '{"n":1}', '{"n":2}');
    expect(response.headers.get("content-type")).toBe("application/x-ndjson");
  });
  test("a streamed Web Response of text/plain streams", async () => {
    await firstChunkBeforeEnd("/web-text", "first", "second");
  });
  test("a body made in memory is still given to the middleware as description", async () => {
    const response = await fetch(`${server.url}/buffered`);
    expect(await response.text()).toBe("whole body, seen by middleware");
    expect(response.headers.get("x-after")).toBe("yes");
  });
});
