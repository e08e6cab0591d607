/**
 * Issue #14: `serveFile(path)` without a name is a download named after the
 * file (the spec's framework sends `attachment` with the base name), `inline`
 * on request; `serveHtml` stays a page. And `setCookie` twice with one name
 * sends one `Set-Cookie`, with the last value.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { Response, type ServerHandle, serveFile, serveHtml, Webfw } from "../../src/index.ts";

const FIXTURES = join(import.meta.dir, "../fixtures");
let server: ServerHandle;

beforeAll(async () => {
  const app = new Webfw(import.meta.path, { openapi: false });
  app.get("/plain", () => serveFile(join(FIXTURES, "hello.txt")));
  app.get("/named", () => serveFile(join(FIXTURES, "hello.txt"), { fileName: "greeting.txt" }));
  app.get("/inline", () => serveFile(join(FIXTURES, "hello.txt"), { disposition: "inline" }));
  app.get("/page", () => serveHtml(join(FIXTURES, "page.html")));
  app.get("/cookies", () =>
    new Response(200, {}, "ok").setCookie("a", "1").setCookie("b", "2").setCookie("a", "3"),
  );
  app.get("/cookie-deleted", () => new Response(200, {}, "ok").setCookie("a", "1").deleteCookie("a"));
  app.afterRequest((response) => {
    response.setCookie("seen", "1");
    response.setCookie("seen", "2");
    return response;
  });
  server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false, handleSignals: false });
});
afterAll(() => server.stop(true));

const get = (path: string) => fetch(`${server.url}${path}`);

test("serveFile(path) without a name: attachment with the base name", async () => {
  const res = await get("/plain");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-disposition")).toBe('attachment; filename="hello.txt"');
  expect(res.headers.get("content-type")).toStartWith("text/plain");
});

test("a given name wins; inline keeps the base name", async () => {
  expect((await get("/named")).headers.get("content-disposition")).toBe(
    'attachment; filename="greeting.txt"',
  );
  expect((await get("/inline")).headers.get("content-disposition")).toBe('inline; filename="hello.txt"');
});

test("serveHtml is a page, not a download", async () => {
  const res = await get("/page");
  expect(res.headers.get("content-disposition")).toBeNull();
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
});

test("one Set-Cookie per name, last value wins (handler and after-middleware)", async () => {
  const cookies = (await get("/cookies")).headers.getSetCookie();
  expect(cookies.map((c) => c.split(";")[0])).toEqual(["b=2", "a=3", "seen=2"]);
  const deleted = (await get("/cookie-deleted")).headers.getSetCookie();
  expect(deleted.filter((c) => c.startsWith("a="))).toHaveLength(1);
  expect(deleted.find((c) => c.startsWith("a="))).toContain("Max-Age=0");
});
