/**
 * Issue #14: a route with a body schema reads JSON (or a form); another
 * declared content type is 415 before parsing, invalid JSON is 400 (never a
 * 422 about missing fields), and validation issues stay 422.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import { type ServerHandle, t, Webfw } from "../../src/index.ts";

let server: ServerHandle;

beforeAll(async () => {
  const app = new Webfw(import.meta.path, { openapi: false });
  app.post("/zod", ({ parsedBody }) => parsedBody, { body: z.object({ title: z.string() }) });
  app.post("/t", ({ parsedBody }) => parsedBody, { body: t.object({ n: t.int() }) });
  server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false, handleSignals: false });
});
afterAll(() => server.stop(true));

const post = (path: string, body: string, type: string | null) => {
  const headers = new Headers();
  if (type !== null) headers.set("content-type", type);
  return fetch(`${server.url}${path}`, { method: "POST", body: new TextEncoder().encode(body), headers });
};

describe("body schema and content types", () => {
  for (const path of ["/zod", "/t"]) {
    const good = path === "/zod" ? '{"title":"a"}' : '{"n":3}';
    const form = path === "/zod" ? "title=a" : "n=3";
    test(`${path}: JSON, +json, a form and no Content-Type are read`, async () => {
      for (const [body, type] of [
        [good, "application/json"],
        [good, "application/json; charset=utf-8"],
        [good, "application/vnd.api+json"],
        [form, "application/x-www-form-urlencoded"],
        [good, null],
      ] as const) {
        const res = await post(path, body, type);
        expect({ type, status: res.status }).toEqual({ type, status: 200 });
      }
    });
    test(`${path}: another content type is 415 with Accept-Post`, async () => {
      for (const type of [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/xml",
        "application/octet-stream",
      ]) {
        const res = await post(path, good, type);
        expect({ type, status: res.status }).toEqual({ type, status: 415 });
        expect(res.headers.get("accept-post")).toContain("application/json");
      }
    });
    test(`${path}: invalid JSON is 400, a wrong value 422`, async () => {
      const bad = await post(path, "{oops", "application/json");
      expect(bad.status).toBe(400);
      expect(await bad.text()).toContain("invalid JSON");
      const wrong = await post(path, path === "/zod" ? '{"title":1}' : '{"n":"x"}', "application/json");
      expect(wrong.status).toBe(422);
    });
  }
});
