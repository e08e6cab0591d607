/**
 * Text and JSON answers carry Bun's own media-type spellings and are made without a Headers object
 * (src/http/media-type.ts, src/response/plain-text.ts). Bun writes the text type on the wire, but
 * every layer that copies a response (HEAD, pairs, compression, the exception handler, const routes,
 * Workers) must still carry it: checked over real HTTP, and in-process through `app.request`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ServerHandle } from "../../src/index.ts";
import { startQuiet } from "../security/helpers.ts";
import mediaAppDefault, { mediaApp } from "./fixtures/media-app.ts";

const TEXT = "text/plain;charset=utf-8";
const JSON_TYPE = "application/json;charset=utf-8";

let plain: ServerHandle;
let compressed: ServerHandle;
let ids: ServerHandle;
let workers: ServerHandle;

beforeAll(async () => {
  plain = await startQuiet(mediaApp());
  compressed = await startQuiet(mediaApp({ compression: true }));
  ids = await startQuiet(mediaApp({ requestId: true }));
  workers = await mediaAppDefault.start({ port: 0, workers: 2, accessLog: false });
});
afterAll(async () => {
  for (const handle of [plain, compressed, ids, workers]) await handle.stop(true);
});

async function answer(handle: ServerHandle, path: string, init: RequestInit = {}) {
  const response = await fetch(`http://127.0.0.1:${handle.port}${path}`, init);
  return { status: response.status, type: response.headers.get("content-type"), body: await response.text() };
}

describe("over HTTP", () => {
  test("text, JSON, pairs, a const route and the exception handler's answer keep their type", async () => {
    for (const handle of [plain, ids]) {
      expect(await answer(handle, "/text")).toEqual({ status: 200, type: TEXT, body: "plain text" });
      expect(await answer(handle, "/json")).toEqual({ status: 200, type: JSON_TYPE, body: '{"a":1}' });
      expect(await answer(handle, "/pair")).toEqual({ status: 201, type: TEXT, body: "created" });
      expect(await answer(handle, "/json-pair")).toEqual({ status: 202, type: JSON_TYPE, body: '{"b":2}' });
      expect(await answer(handle, "/const")).toEqual({ status: 200, type: TEXT, body: "constant" });
      const webfw = await fetch(`http://127.0.0.1:${handle.port}/webfw`);
      expect([webfw.status, webfw.headers.get("content-type"), webfw.headers.get("x-a")]).toEqual([
        203,
        TEXT,
        "1",
      ]);
      expect(await webfw.text()).toBe("from webfw");
      const challenge = await fetch(`http://127.0.0.1:${handle.port}/challenge`);
      expect(challenge.status).toBe(401);
      expect(challenge.headers.get("www-authenticate")).toBe('Bearer realm="x"');
      expect(challenge.headers.get("content-type")).toBe(TEXT);
      expect(await challenge.text()).toBe("handled 401");
    }
  });

  test("HEAD of a text route has the type and the length, no body", async () => {
    for (const path of ["/text", "/pair", "/const", "/webfw"]) {
      const response = await fetch(`http://127.0.0.1:${plain.port}${path}`, { method: "HEAD" });
      expect({ path, type: response.headers.get("content-type") }).toEqual({ path, type: TEXT });
      expect(await response.text()).toBe("");
    }
    const head = await fetch(`http://127.0.0.1:${plain.port}/text`, { method: "HEAD" });
    expect(head.headers.get("content-length")).toBe(String("plain text".length));
  });

  test("request ids are written beside the implied type", async () => {
    const response = await fetch(`http://127.0.0.1:${ids.port}/text`);
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get("content-type")).toBe(TEXT);
  });

  test("compression keeps the type of a compressed and of a too-small text answer", async () => {
    const big = await fetch(`http://127.0.0.1:${compressed.port}/long`, {
      headers: { "accept-encoding": "gzip" },
    });
    expect(big.headers.get("content-encoding")).toBe("gzip");
    expect(big.headers.get("content-type")).toBe(TEXT);
    expect(await big.text()).toBe("x".repeat(4096));
    const small = await fetch(`http://127.0.0.1:${compressed.port}/text`, {
      headers: { "accept-encoding": "gzip" },
    });
    expect(small.headers.get("content-encoding")).toBeNull();
    expect(small.headers.get("content-type")).toBe(TEXT);
    const constant = await fetch(`http://127.0.0.1:${compressed.port}/const`, {
      headers: { "accept-encoding": "gzip" },
    });
    expect(constant.headers.get("content-type")).toBe(TEXT);
  });

  test("an answer made in a Worker keeps its type", async () => {
    expect(await answer(workers, "/offloaded")).toEqual({ status: 200, type: TEXT, body: "from a worker" });
    expect(await answer(workers, "/offloaded-json")).toEqual({
      status: 200,
      type: JSON_TYPE,
      body: '{"worker":true}',
    });
  });
});

describe("in-process", () => {
  test("app.request shows the implied type in the headers", async () => {
    const app = mediaApp();
    for (const [path, type] of [
      ["/text", TEXT],
      ["/pair", TEXT],
      ["/json", JSON_TYPE],
      ["/webfw", TEXT],
    ] as const) {
      const response = await app.request(path);
      expect({ path, type: response.headers.get("content-type") }).toEqual({ path, type });
    }
    const head = await app.request("/text", { method: "HEAD" });
    expect(head.headers.get("content-type")).toBe(TEXT);
  });
});
