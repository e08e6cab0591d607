/**
 * CR/LF header injection: through the app's header configuration, cookies,
 * handler-built headers and redirects. A CR, LF or NUL never reaches the wire:
 * configuration refuses it at the call (TypeError), cookie values are
 * percent-encoded, and a handler that copies client input into a header
 * fails (500, logged) instead of splitting the response.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Response, type ServerHandle, Webfw } from "../../src/index.ts";
import { logger } from "../../src/log/logger.ts";
import { Results, startQuiet } from "./helpers.ts";
import { type RawReply, rawGet } from "./raw-client.ts";

const INJECTIONS = [
  "a\r\nSet-Cookie: evil=1",
  "a\nX-Evil: 1",
  "a\rX-Evil: 1",
  "a\0b",
  "\r\n\r\n<html>evil</html>",
];
const results = new Results("header-injection");

describe("application header configuration refuses CR, LF and NUL at the call", () => {
  const methods = ["setResponseHeader", "addResponseHeader", "setRequestHeader", "addRequestHeader"] as const;
  for (const method of methods) {
    test(method, () => {
      const app = new Webfw(import.meta.path);
      for (const value of INJECTIONS) {
        expect(() => app[method]("x-test", value)).toThrow(TypeError);
        expect(() => app[method](`x-${value}`, "v")).toThrow(TypeError);
      }
      for (const name of ["x test", "x:test", "", "x\ttest"])
        expect(() => app[method](name, "v")).toThrow(TypeError);
      // The same call with a clean value works (so the refusals are about the bytes).
      expect(() => app[method]("x-test", "clean value")).not.toThrow();
      results.add({
        group: "configuration",
        input: `${method} with CR/LF/NUL in name or value`,
        outcome: "TypeError at the call",
      });
    });
  }
});

describe("setCookie", () => {
  test("names and attributes with CR/LF/`;` are refused; values are percent-encoded", () => {
    const response = new Response(200);
    for (const bad of INJECTIONS) {
      expect(() => response.setCookie(bad, "v")).toThrow(TypeError);
      expect(() => response.setCookie("c", "v", { path: `/${bad}` })).toThrow(TypeError);
      expect(() => response.setCookie("c", "v", { domain: bad })).toThrow(TypeError);
    }
    expect(() => response.setCookie("c", "v", { path: "/; Domain=evil.example" })).toThrow(TypeError);
    expect(() => response.setCookie("c", "v", { sameSite: "Lax; Domain=evil" as "Lax" })).toThrow(TypeError);
    response.setCookie("c", "a\r\nSet-Cookie: evil=1; Domain=evil.example");
    const lines = response.headers.getAll("set-cookie");
    expect(lines).toEqual(["c=a%0D%0ASet-Cookie%3A%20evil%3D1%3B%20Domain%3Devil.example; Path=/"]);
    results.add({
      group: "cookies",
      input: "setCookie with CR/LF in name, path, domain, sameSite",
      outcome: "TypeError at the call",
    });
    results.add({
      group: "cookies",
      input: "setCookie with CR/LF in the value",
      outcome: "percent-encoded, one Set-Cookie",
    });
  });
});

describe("over the wire", () => {
  let server: ServerHandle;
  let base: string;
  let errorSpy: ReturnType<typeof spyOn>;

  beforeAll(async () => {
    errorSpy = spyOn(logger, "error").mockImplementation(() => {});
    base = mkdtempSync(join(tmpdir(), "webfw-crlf-"));
    mkdirSync(join(base, "a\r\nSet-Cookie: evil=1"));
    writeFileSync(join(base, "a\r\nSet-Cookie: evil=1", "index.html"), "inside");
    const app = new Webfw(import.meta.path);
    const q = (request: { queryParams: { get(k: string, d: string): string } }) =>
      request.queryParams.get("v", "");
    app.get("/cookie", (request) => new Response(200, {}, "ok").setCookie("echo", q(request)));
    app.get("/webfw-header", (request) => new Response(200, { "x-echo": q(request) }, "ok"));
    app.get("/dict-header", (request) => ({
      statusCode: 200,
      description: "ok",
      headers: { "x-echo": q(request) },
    }));
    app.get("/web-header", (request) => new globalThis.Response("ok", { headers: { "x-echo": q(request) } }));
    app.get("/redirect-web", (request) =>
      globalThis.Response.redirect(new URL(q(request), "http://127.0.0.1/").href, 302),
    );
    app.get("/redirect-relative", (request) => globalThis.Response.redirect(q(request), 302));
    app.get("/redirect-webfw", (request) => new Response(302, { location: q(request) }));
    app.get("/after", () => "ok");
    app.afterRequest("/after", (response, request) => {
      response.headers.set("x-after", q(request));
    });
    app.serveDirectory({ route: "/static", directoryPath: base, indexFile: "index.html" });
    server = await startQuiet(app);
  });
  afterAll(async () => {
    errorSpy.mockRestore();
    await server.stop(true);
    rmSync(base, { recursive: true, force: true });
    results.write();
  });

  /** No header line may have been added by the client's bytes: no X-Evil, no cookie named evil, only valid lines. */
  function assertNoInjection(reply: RawReply): void {
    const head = reply.raw.slice(0, reply.raw.indexOf("\r\n\r\n"));
    expect(head).not.toContain("\0");
    for (const line of head.split("\r\n").slice(1)) {
      expect(line).toMatch(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+: /);
      expect(line.toLowerCase().startsWith("x-evil")).toBe(false);
      expect(/^set-cookie: *evil=/i.test(line)).toBe(false);
    }
    expect(reply.body).not.toContain("<html>evil");
  }

  const ATTACK = "%0d%0aSet-Cookie:%20evil=1%0d%0aX-Evil:%201";

  test("a cookie value from the query: encoded, never a second header", async () => {
    const reply = await rawGet(server.port, `/cookie?v=x${ATTACK}`);
    expect(reply.status).toBe(200);
    assertNoInjection(reply);
    expect(reply.headers["set-cookie"]).toBe(
      "echo=x%0D%0ASet-Cookie%3A%20evil%3D1%0D%0AX-Evil%3A%201; Path=/",
    );
  });

  test("Response.redirect with a relative target: CR/LF are dropped (302) or refused (500), never a header", async () => {
    const reply = await rawGet(server.port, `/redirect-relative?v=x${ATTACK}`);
    assertNoInjection(reply);
    expect([302, 500]).toContain(reply.status);
    if (reply.status === 302)
      expect(reply.headers.location?.toLowerCase()).toBe("xset-cookie: evil=1x-evil: 1");
    results.add({
      group: "redirects",
      input: "Response.redirect(relative target with %0d%0a)",
      outcome: `${reply.status}, one Location line`,
    });
  });

  for (const path of ["/webfw-header", "/dict-header", "/web-header", "/redirect-webfw", "/after"]) {
    test(`${path}: client CR/LF in a handler-built header fails the request (500), nothing is injected`, async () => {
      const reply = await rawGet(server.port, `${path}?v=x${ATTACK}`);
      assertNoInjection(reply);
      expect(reply.status).toBe(500);
      expect(reply.body).toBe("Internal Server Error");
      results.add({
        group: "handler headers",
        input: `${path} with %0d%0a from the query`,
        outcome: "500 (TypeError in the handler), no header added",
      });
      const clean = await rawGet(server.port, `${path}?v=/clean`);
      expect([200, 302]).toContain(clean.status);
    });
  }

  test("Response.redirect with an absolute URL: the URL parser drops CR/LF", async () => {
    const reply = await rawGet(server.port, `/redirect-web?v=/x${ATTACK}`);
    expect(reply.status).toBe(302);
    assertNoInjection(reply);
    expect(reply.headers.location).toBe("http://127.0.0.1/xSet-Cookie:%20evil=1X-Evil:%201");
    results.add({
      group: "redirects",
      input: "Response.redirect(absolute URL with %0d%0a)",
      outcome: "302, CR/LF removed by the URL parser",
    });
  });

  test("serveDirectory's slash redirect for a directory whose name holds CR/LF: encoded", async () => {
    const reply = await rawGet(server.port, "/static/a%0D%0ASet-Cookie%3A%20evil%3D1");
    expect(reply.status).toBe(301);
    assertNoInjection(reply);
    expect(reply.headers.location).toBe("/static/a%0D%0ASet-Cookie%3A%20evil%3D1/");
    results.add({
      group: "redirects",
      input: "serveDirectory 301 for a directory named with CR/LF",
      outcome: "301, Location percent-encoded",
    });
  });

  test("raw CR/LF bytes in the request never reach a handler", async () => {
    const reply = await rawGet(server.port, "/cookie?v=a\r\nX-Evil: 1");
    // Bun's parser sees a broken request line: 400 or 505, before any handler.
    expect([400, 505]).toContain(reply.status);
  });
});
