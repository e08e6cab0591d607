/**
 * `body: "stream"`, the one way to take a raw or streamed body (docs/bodies.md#streaming-a-body-yourself):
 * the handler reads `request.raw.body` itself; the old `rawBody: true` is refused with the new spelling.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type RouteOptions, type ServerHandle, Webfw } from "../../src/index.ts";

const app = new Webfw(import.meta.path, { maxBodySize: 1024, uploads: { maxInFlight: 1 } });
app.post(
  "/raw",
  async (request) => {
    let size = 0;
    let chunks = 0;
    const reader = (request.raw.body as ReadableStream<Uint8Array>).getReader();
    for (let step = await reader.read(); !step.done; step = await reader.read()) {
      size += step.value.byteLength;
      chunks++;
    }
    return { size, chunks: chunks > 0, body: request.body };
  },
  { body: "stream" },
);
app.post("/buffered", (request) => ({ size: (request.body as string).length }));

let server: ServerHandle;
beforeAll(async () => {
  server = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false, accessLog: false });
});
afterAll(() => server.stop());

describe('body: "stream" for raw bytes', () => {
  test("the handler reads the body stream itself; maxBodySize does not apply", async () => {
    const body = new Uint8Array(64 * 1024).fill(120);
    const response = await fetch(`${server.url}/raw`, { method: "POST", body });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ size: 64 * 1024, chunks: true, body: "" });
  });

  test("a chunked body of any type streams through too", async () => {
    const chunks = ["first,", "second,", "third"];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const response = await fetch(`${server.url}/raw`, {
      method: "POST",
      body: stream,
      headers: { "content-type": "application/octet-stream" },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ size: 18, chunks: true, body: "" });
  });

  test("a route without it still buffers and limits the body", async () => {
    const response = await fetch(`${server.url}/buffered`, { method: "POST", body: "x".repeat(4096) });
    expect(response.status).toBe(413);
  });

  test("the old rawBody option is refused with the new spelling; stream with offload is refused", async () => {
    const old = new Webfw(import.meta.path);
    old.post("/a", () => "", { rawBody: true } as RouteOptions);
    await expect(old.build()).rejects.toThrow('POST /a: the option rawBody is now body: "stream"');
    const offloaded = new Webfw(import.meta.path);
    offloaded.post("/b", () => "", { body: "stream", offload: true });
    await expect(offloaded.build()).rejects.toThrow(/POST \/b: body: "stream" cannot be offloaded/);
  });
});
