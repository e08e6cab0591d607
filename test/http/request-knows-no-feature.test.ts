/**
 * `Request` knows no feature (docs/architecture.md, "What a Request knows"): src/http/request.ts
 * imports at run time only src/http/ modules and the core's error classes, and what features keep
 * for one request lives in its context, never on Bun's request object.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { dirname, join, relative, resolve } from "node:path";
import { Request as WebfwRequest } from "../../src/http/request.ts";
import { type ServerHandle, Webfw } from "../../src/index.ts";

const SRC = resolve(import.meta.dir, "../../src");
const REQUEST = join(SRC, "http/request.ts");

/** The modules `code` of `file` loads at run time (imports, re-exports, `require`, `import()`); types are dropped. */
function runtimeImports(file: string, code: string): string[] {
  const transpiler = new Bun.Transpiler({ loader: "ts" });
  return transpiler.scanImports(code).map((entry) => relative(SRC, resolve(dirname(file), entry.path)));
}

describe("src/http/request.ts", () => {
  test("loads only src/http/ modules and the core's error classes", async () => {
    const imports = runtimeImports(REQUEST, await Bun.file(REQUEST).text());
    expect(imports.length).toBeGreaterThan(0);
    const features = imports.filter((path) => !path.startsWith("http/") && path !== "response/errors.ts");
    expect(features).toEqual([]);
  });

  test("the scan sees a feature import, a require and a type import for what they are", () => {
    const probe = [
      'import type { Session } from "../sessions/session.ts";',
      'import { jobsOf } from "../jobs/lookup.ts";',
      'const parts = require("../uploads/parts.ts");',
      "export const used: unknown[] = [jobsOf, parts, null as Session | null];",
    ].join("\n");
    expect(runtimeImports(REQUEST, probe).sort()).toEqual(["jobs/lookup.ts", "uploads/parts.ts"]);
  });
});

describe("a Request made alone", () => {
  test("has a stable id, no nonce, no address, and its own context only once asked", () => {
    const request = new WebfwRequest(new Request("http://x/a", { headers: { "x-request-id": "abc-1" } }), {});
    expect(request.context).toBeNull();
    expect(request.cspNonce).toBeUndefined();
    expect(request.ipAddr).toBeNull();
    expect(request.context).toBeNull();
    expect(request.id).toBe("abc-1");
    expect(request.context).not.toBeNull();
    expect(request.id).toBe("abc-1");
    request.id = "other";
    expect(request.id).toBe("other");
    expect(Object.getOwnPropertySymbols(request.raw)).toEqual([]);
  });

  test("reads a form and refuses a malformed JSON body without importing either feature", () => {
    const raw = new Request("http://x/f", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    const request = new WebfwRequest(raw, {});
    request.body = "a=1&b=two";
    expect(request.formData).toEqual({ a: "1", b: "two" });
    expect(new WebfwRequest(new Request("http://x/"), {}).form).toBeNull();
    request.body = "{";
    expect(() => request.json()).toThrow("invalid JSON body");
  });
});

describe("per-request data in the context, over HTTP", () => {
  const servers: ServerHandle[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop(true);
  });

  test("id, nonce and client address: the handler sees the layers' values, Bun's request carries none", async () => {
    const app = new Webfw(import.meta.path, { requestId: true, secureHeaders: true, trustProxy: true });
    app.get("/seen", (request) => ({
      id: request.id,
      nonce: request.cspNonce ?? null,
      ip: request.ipAddr,
      host: request.url.host,
      symbols: Object.getOwnPropertySymbols(request.raw).length,
    }));
    const server = await app.start({ port: 0, accessLog: false });
    servers.push(server);
    const response = await fetch(`http://127.0.0.1:${server.port}/seen`, {
      headers: {
        "x-request-id": "req-42",
        "x-forwarded-for": "203.0.113.9",
        "x-forwarded-host": "shop.example",
      },
    });
    expect(response.status).toBe(200);
    const seen = (await response.json()) as {
      id: string;
      nonce: string | null;
      ip: string;
      host: string;
      symbols: number;
    };
    expect(seen.id).toBe("req-42");
    expect(response.headers.get("x-request-id")).toBe("req-42");
    expect(seen.nonce).not.toBeNull();
    expect(response.headers.get("content-security-policy")).toContain(`'nonce-${seen.nonce}'`);
    expect(seen.ip).toBe("203.0.113.9");
    expect(seen.host).toBe("shop.example");
    expect(seen.symbols).toBe(0);
  });

  test("with request ids off, the handler's id is the one the access log writes", async () => {
    const { logger, stderrSink } = await import("../../src/log/logger.ts");
    const lines: string[] = [];
    logger.setSink((line: string) => {
      lines.push(line);
    });
    try {
      const app = new Webfw(import.meta.path);
      app.get("/id", (request) => request.id);
      const server = await app.start({ port: 0, accessLog: true });
      servers.push(server);
      const response = await fetch(`http://127.0.0.1:${server.port}/id`);
      const id = await response.text();
      expect(response.headers.get("x-request-id")).toBeNull();
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(lines.some((line) => line.includes(id) && line.includes("/id"))).toBe(true);
    } finally {
      logger.setSink(stderrSink);
    }
  });
});
