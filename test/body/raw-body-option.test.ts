/** The `rawBody` route option: the handler streams the body itself (docs/routing.md, route options). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ServerHandle, t, Webfw } from "../../src/index.ts";

const app = new Webfw(import.meta.path, { maxBodySize: 1024 });
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
  { rawBody: true },
);
app.post("/buffered", (request) => ({ size: (request.body as string).length }));

let server: ServerHandle;
beforeAll(async () => {
  server = await app.start({ port: 0 });
});
afterAll(() => server.stop());

describe("rawBody", () => {
  test("the handler reads the body stream itself; maxBodySize does not apply", async () => {
    const body = new Uint8Array(64 * 1024).fill(120);
    const response = await fetch(`${server.url}/raw`, { method: "POST", body });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ size: 64 * 1024, chunks: true, body: "" });
  });

  test("a route without it still buffers and limits the body", async () => {
    const response = await fetch(`${server.url}/buffered`, { method: "POST", body: "x".repeat(4096) });
    expect(response.status).toBe(413);
  });

  test("rawBody with body or with offload is refused when the app is built", async () => {
    const withSchema = new Webfw(import.meta.path);
    withSchema.post("/a", () => "", { rawBody: true, body: t.object({ a: t.str() }) });
    await expect(withSchema.build()).rejects.toThrow(/POST \/a: rawBody leaves the body unread/);
    const offloaded = new Webfw(import.meta.path);
    offloaded.post("/b", () => "", { rawBody: true, offload: true });
    await expect(offloaded.build()).rejects.toThrow(/POST \/b: rawBody cannot be offloaded/);
  });
});
