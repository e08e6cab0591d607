/**
 * Finding 1 of issue #13: one request-target rule on every engine. A global
 * guard on `request.url.path`, a path-scoped middleware and a wildcard
 * handler, probed over raw TCP (fetch would normalise or refuse the targets)
 * with every Host trick and dot-segment spelling. Every engine must answer
 * the same, and nothing under /internal may run without the guard seeing it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Response, type ServerHandle, Webfw } from "../../src/index.ts";
import { logger, stderrSink } from "../../src/log/logger.ts";
import type { RouterEngine } from "../../src/match/types.ts";
import { Results, startQuiet } from "./helpers.ts";
import { rawExchange } from "./raw-client.ts";

const ENGINES: RouterEngine[] = ["bun", "js", "ffi"];
const results = new Results("request-target");
const servers = new Map<RouterEngine, ServerHandle>();
/** What each handler saw, so a test can check that url.path, params and the log line agree. */
const seen: string[] = [];

function makeApp(engine: RouterEngine): Webfw {
  const app = new Webfw(import.meta.path, { router: engine, openapi: false });
  app.beforeRequest((r) =>
    r.url.path.startsWith("/internal") ? new Response(403, {}, "guarded") : undefined,
  );
  app.beforeRequest("/scoped/:id", () => new Response(403, {}, "scoped guard"));
  app.get("/internal", (r) => `INTERNAL ${r.url.path}`);
  app.get("/internal/files/*rest", (r) => `FILES ${r.pathParams.rest}`);
  app.get("/public", (r) => {
    seen.push(`public ${r.url.path}`);
    return `public ${r.url.path}`;
  });
  app.get("/a/:x", (r) => `A ${r.pathParams.x} ${r.url.path}`);
  app.get("/u/me", () => "ME");
  app.get("/u/*rest", (r) => `U ${r.pathParams.rest}`);
  app.get("/scoped/:id", () => "SCOPED HANDLER");
  app.get("/host", (r) => `host=${r.url.host} path=${r.url.path} query=${r.url.query}`);
  return app;
}

beforeAll(async () => {
  for (const engine of ENGINES) servers.set(engine, await startQuiet(makeApp(engine)));
});

afterAll(async () => {
  for (const handle of servers.values()) await handle.stop(true);
  results.write();
});

async function send(engine: RouterEngine, request: string) {
  const reply = await rawExchange((servers.get(engine) as ServerHandle).port, request, { waitMs: 2000 });
  results.add({
    group: `request target (${engine})`,
    input: request.split("\r\n")[0] ?? "",
    outcome: String(reply.status),
  });
  return reply;
}

const get = (target: string, host: string | null = "127.0.0.1", version = "1.1") =>
  `GET ${target} HTTP/${version}\r\n${host === null ? "" : `Host: ${host}\r\n`}Connection: close\r\n\r\n`;

/** [request, status, body (exact) or null for "any body that is not a handler's"] */
const CASES: Array<[string, string, number, string | null]> = [
  // Host tricks: the path never changes; a bad Host is 400 (RFC 9112 §3.2).
  ["HTTP/1.0 without Host", get("/internal", null, "1.0"), 403, "guarded"],
  ["HTTP/1.0 without Host, public", get("/public?q=1", null, "1.0"), 200, "public /public"],
  ["HTTP/1.0 without Host, query kept", get("/host?a=b", null, "1.0"), 200, "host= path=/host query=a=b"],
  ["HTTP/1.1 without Host", get("/internal", null), 400, null],
  ["empty Host", get("/internal", ""), 400, null],
  ["Host x/y", get("/internal", "x/y"), 400, null],
  ["Host x?y", get("/internal", "x?y"), 400, null],
  ["Host x#y", get("/internal", "x#y"), 400, null],
  ["Host x\\y", get("/internal", "x\\y"), 400, null],
  ["Host x y", get("/internal", "x y"), 400, null],
  ["Host @", get("/internal", "@"), 400, null],
  ["Host a@b", get("/internal", "a@b"), 400, null],
  ["Host a:b:c", get("/internal", "a:b:c"), 400, null],
  ["Host non-ASCII", get("/internal", "\xc3\xa9"), 400, null],
  ["HTTP/1.0 with Host x/y", get("/public", "x/y", "1.0"), 400, null],
  ["two Host lines", "GET /public HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n", 400, null],
  ["Host with port", get("/host", "example.com:8080"), 200, "host=example.com:8080 path=/host query="],
  ["Host IPv6 literal", get("/host", "[::1]:80"), 200, null],
  ["absolute-form target", get("http://evil.example/internal", "127.0.0.1"), 403, "guarded"],
  // Dot segments, plain and encoded: resolved before matching, then routed like any path.
  ["/internal/..", get("/internal/.."), 404, null],
  ["/internal/%2e%2e", get("/internal/%2e%2e"), 404, null],
  [
    "/internal/files/%2e%2e/%2e%2e/public",
    get("/internal/files/%2e%2e/%2e%2e/public"),
    200,
    "public /public",
  ],
  ["/internal/files/../../public", get("/internal/files/../../public"), 200, "public /public"],
  ["/internal/files/.%2E/x", get("/internal/files/.%2E/x"), 403, "guarded"],
  ["/public/../internal", get("/public/../internal"), 403, "guarded"],
  ["/public/%2E%2E/internal", get("/public/%2E%2E/internal"), 403, "guarded"],
  ["/./internal", get("/./internal"), 403, "guarded"],
  ["/%2e/internal", get("/%2e/internal"), 403, "guarded"],
  ["/a/%2e%2e", get("/a/%2e%2e"), 404, null],
  ["/a/..", get("/a/.."), 404, null],
  ["/a/.", get("/a/."), 404, null],
  ["/a/.%2e", get("/a/.%2e"), 404, null],
  ["/a/x/..", get("/a/x/.."), 404, null],
  ["/a/x\\..\\..\\internal", get("/a/x\\..\\..\\internal"), 403, "guarded"],
  ["/a/x\\y", get("/a/x\\y"), 404, null],
  [
    "/a/%2e%2e%2finternal stays a param",
    get("/a/%2e%2e%2finternal"),
    200,
    "A ../internal /a/%2e%2e%2finternal",
  ],
  ["/u/x/../me", get("/u/x/../me"), 200, "ME"],
  ["/u/me/../you", get("/u/me/../you"), 200, "U you"],
  ["/scoped/x/../7", get("/scoped/x/../7"), 403, "scoped guard"],
  ["/scoped/%2e%2e/scoped/7", get("/scoped/%2e%2e/scoped/7"), 403, "scoped guard"],
  ["fragment in target", get("/a/x#y"), 400, null],
  ["fragment after query", get("/a/x?q=1#y"), 400, null],
];

for (const engine of ENGINES) {
  describe(`request target (${engine})`, () => {
    for (const [name, request, status, body] of CASES) {
      test(name, async () => {
        const reply = await send(engine, request);
        expect({ name, status: reply.status }).toEqual({ name, status });
        if (body !== null) expect(reply.body).toBe(body);
        // Nothing under /internal ever answers without the guard.
        expect(reply.body).not.toContain("INTERNAL");
        expect(reply.body).not.toContain("FILES");
      });
    }

    test("a wildcard capture never leaves its prefix", async () => {
      const reply = await send(engine, get("/internal/files/a/../b"));
      expect(reply.status).toBe(403);
    });
  });
}

test("all engines give the same answer to every case", async () => {
  for (const [name, request] of CASES) {
    const answers = await Promise.all(ENGINES.map((e) => send(e, request)));
    const summary = answers.map((a) => `${a.status} ${a.body}`);
    expect({ name, summary }).toEqual({ name, summary: ENGINES.map(() => summary[0] as string) });
  }
});

describe("the access log names the path the handler ran for", () => {
  for (const engine of ENGINES) {
    test(engine, async () => {
      const lines: string[] = [];
      logger.setSink((line) => lines.push(line));
      const handle = await startQuiet(makeApp(engine), { accessLog: true });
      try {
        const port = handle.port;
        expect((await rawExchange(port, get("/internal", null, "1.0"))).status).toBe(403);
        expect((await rawExchange(port, get("/internal/files/%2e%2e/%2e%2e/public"))).body).toBe(
          "public /public",
        );
        expect((await rawExchange(port, get("/a/%2e%2e%2fx"))).status).toBe(200);
      } finally {
        await handle.stop(true);
        logger.setSink(stderrSink);
      }
      // The access lines (the startup line has no path).
      const paths = lines.flatMap((line) => /path=(\S+)/.exec(line)?.[1] ?? []);
      expect(paths).toEqual(["/internal", "/public", "/a/%2e%2e%2fx"]);
    });
  }
});
