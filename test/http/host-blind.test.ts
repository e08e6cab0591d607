/**
 * Host-blind routes (src/serve/host-blind.ts): a route with nothing before its handler is checked
 * only as far as its answer can depend on the request, and the handler's first look at the URL,
 * the query or the headers finishes the request-target check. Probed over raw TCP with every Host
 * spelling: wherever the Host or target can reach an answer, the answer is the 400 the whole check
 * gives (compared with `hostProblem` itself, on plain routes and on routes behind middlewares).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hostProblem } from "../../src/http/request-target.ts";
import { Request, Response, type ServerHandle, Webfw } from "../../src/index.ts";
import { logger, stderrSink } from "../../src/log/logger.ts";
import { startQuiet } from "../security/helpers.ts";
import { rawExchange } from "../security/raw-client.ts";

/** Single Host lines: the ones Bun puts into `req.url`, the ones it cannot, and every edge between. */
const HOSTS = [
  "a",
  "A.B",
  "a:80",
  "a:",
  ":80",
  "a b",
  "a/b",
  "a@b",
  'a"b',
  "a{b",
  "a}b",
  "a`b",
  "a|b",
  "a^b",
  "a<b",
  "a%41",
  "a%zz",
  "[::1]",
  "[::1]:8",
  "[x]",
  "a:99999",
  "a:8x",
  "1.2.3.4",
  "\xc3\xa9.com",
  "xn--e.com",
  "a..b",
  ".a",
  "a;b",
  "a,b",
  "a=b",
  "a&b",
  "a'b",
  "a(b",
  "a*b",
  "a+b",
  "a!b",
  "a$b",
  "a~b",
  "a_b",
  "0x7f.1",
  "a:+80",
  "a:-1",
  "a:08",
  "[::1",
  "::1",
  "[::1]x",
  "a\\b",
  "a#b",
  "a?b",
  "a[b",
  "",
];

function makeApp(
  options: {
    metrics?: boolean;
    tracing?: boolean;
    compression?: boolean;
    requestId?: boolean | { trustIncoming: boolean };
  } = {},
  limit = false,
): Webfw {
  const app = new Webfw(import.meta.path, { openapi: false, ...options });
  // Keyed by the socket address, a limit reads nothing of the request: the routes stay host-blind.
  if (limit) app.rateLimit({ limit: 100_000, windowMs: 60_000 });
  app.get("/fixed", () => "fixed");
  app.get("/fixed-url", (r) => `host=${r.url.host}`);
  app.get("/query", (r) => `q=${r.queryParams.get("q")}`);
  app.get("/headers", (r) => `x=${r.headers.get("x")}`);
  app.get("/p/:id", (r) => `p=${r.pathParams.id}`);
  app.get("/p-url/:id", (r) => `p=${r.pathParams.id} host=${r.url.host}`);
  // Only the body is read before these handlers: host-blind too (reading it needs no Host).
  app.post("/echo", (r) => `echo=${r.text()}`);
  app.post("/echo-url", (r) => `echo=${r.text()} host=${r.url.host}`);
  app.post("/echo/:id", (r) => `echo=${r.text()} p=${r.pathParams.id}`);
  return app;
}

/**
 * Routes with middlewares: host-blind too, the middlewares being code that looks like a handler
 * (docs/security.md, "Request target"). What reads the URL or the headers, before or after the
 * handler, finishes the check; a `Request` a middleware returns carries what is left of it.
 */
function guardedApp(): Webfw {
  const app = new Webfw(import.meta.path, { openapi: false });
  app.beforeRequest(() => undefined);
  app.afterRequest((response) => {
    response.headers.set("x-after", "1");
  });
  app.get("/fixed", () => "fixed");
  app.get("/p/:id", (r) => `p=${r.pathParams.id}`);
  app.beforeRequest("/guard", (r) => {
    if (r.url.path.startsWith("/internal")) return new Response(403, {}, "no");
  });
  app.get("/guard", () => "guard");
  app.afterRequest("/after-url", (response, r) => {
    response.headers.set("x-host", r.url.host);
  });
  app.get("/after-url", () => "after");
  // The same Bun request in a new `Request`: the pending check goes with it.
  app.beforeRequest("/renew", (r) => new Request(r.raw, r.pathParams));
  app.get("/renew", (r) => `host=${r.url.host}`);
  app.get("/renew-blind", () => "renewed");
  app.beforeRequest("/renew-blind", (r) => new Request(r.raw, r.pathParams));
  // A refusal a middleware catches shows it nothing, and the handler's look is refused again.
  app.beforeRequest("/caught", (r) => {
    try {
      r.state.host = r.url.host;
    } catch {
      r.state.refused = true;
    }
  });
  app.get("/caught", (r) => `host=${r.url.host} refused=${r.state.refused === true}`);
  // Another Bun request: the client's is checked at once.
  app.beforeRequest("/other", (r) => new Request(new globalThis.Request("http://x/other"), r.pathParams));
  app.get("/other", () => "other");
  return app;
}

/** Targets of the guarded app whose answer looks at the Host (before, after, in the handler). */
const GUARDED_LOOKS = ["/p/7", "/guard", "/after-url", "/renew", "/other", "/caught"];

const get = (target: string, host: string | null) =>
  `GET ${target} HTTP/1.1\r\n${host === null ? "" : `Host: ${host}\r\n`}Connection: close\r\n\r\n`;
const twoHosts = (target: string) =>
  `GET ${target} HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n`;

let blind: ServerHandle;
let guarded: ServerHandle;
let observed: ServerHandle;
let withIds: ServerHandle;
let limited: ServerHandle;
let freshIds: ServerHandle;
let traced: ServerHandle;
let compressed: ServerHandle;
const accessLines: string[] = [];

beforeAll(async () => {
  logger.setSink((line) => accessLines.push(line));
  blind = await startQuiet(makeApp());
  guarded = await startQuiet(guardedApp());
  // The request timer and the access log pass the pending check on (the route stays host-blind).
  observed = await startQuiet(makeApp({ metrics: true }), { accessLog: true });
  // Ids that trust the client read its X-Request-Id, never the Host: host-blind too.
  withIds = await startQuiet(makeApp({ requestId: true }));
  limited = await startQuiet(makeApp({}, true));
  // Ids that never trust the client's header read nothing of the request: still host-blind.
  freshIds = await startQuiet(makeApp({ requestId: { trustIncoming: false } }));
  // Server spans (no SDK here: the API alone) pass the pending check on as well.
  traced = await startQuiet(makeApp({ tracing: true }));
  // Compression reads Accept-Encoding and the answer's type, never the Host.
  compressed = await startQuiet(makeApp({ compression: true }));
});

afterAll(async () => {
  for (const handle of [blind, guarded, observed, withIds, limited, freshIds, traced, compressed])
    await handle.stop(true);
  logger.setSink(stderrSink);
});

describe("every single Host line: the answer a handler gives agrees with the whole check", () => {
  for (const host of HOSTS) {
    test(JSON.stringify(host), async () => {
      const expected = hostProblem(host) === null ? 200 : 400;
      const looks = ["/fixed-url", "/headers", "/p-url/7"];
      for (const server of [blind, observed, limited, freshIds, traced, withIds, compressed]) {
        for (const target of looks) {
          const reply = await rawExchange(server.port, get(target, host));
          expect({ host, target, status: reply.status }).toEqual({ host, target, status: expected });
        }
        // The query never shows the Host: reading it finishes only the target check.
        const query = await rawExchange(server.port, get("/query?q=1", host));
        expect({ host, status: query.status, body: query.body }).toEqual({ host, status: 200, body: "q=1" });
        // A param route reads `req.url` for its params anyway, so it is checked then.
        const param = await rawExchange(server.port, get("/p/7", host));
        expect({ host, status: param.status }).toEqual({ host, status: expected });
      }
      // Behind middlewares: every answer that looks gets the whole check's verdict.
      for (const target of GUARDED_LOOKS) {
        const reply = await rawExchange(guarded.port, get(target, host));
        expect({ host, target, status: reply.status }).toEqual({ host, target, status: expected });
      }
    });
  }

  test("a refused Host says why", async () => {
    const reply = await rawExchange(blind.port, get("/fixed-url", "a b"));
    expect(reply.status).toBe(400);
    expect(reply.body).toBe("invalid Host header");
    expect(reply.body).not.toContain("host=");
    // The access log of a host-blind route records the refusal under the route.
    accessLines.length = 0;
    expect((await rawExchange(observed.port, get("/fixed-url", "a b"))).status).toBe(400);
    expect(accessLines.some((line) => /route=\/fixed-url status=400/.test(line))).toBe(true);
  });
});

describe("what the URL cannot show: two Host lines", () => {
  test("refused the moment a handler looks at the URL or the headers", async () => {
    for (const server of [blind, observed, limited, freshIds, traced, withIds, compressed]) {
      for (const target of ["/fixed-url", "/headers", "/p-url/7"]) {
        const reply = await rawExchange(server.port, twoHosts(target));
        expect({ target, status: reply.status, body: reply.body }).toEqual({
          target,
          status: 400,
          body: "more than one Host header",
        });
      }
    }
  });

  test("behind middlewares: refused the moment a middleware or the handler looks", async () => {
    for (const target of GUARDED_LOOKS.filter((t) => t !== "/p/7")) {
      const reply = await rawExchange(guarded.port, twoHosts(target));
      expect({ target, status: reply.status, body: reply.body }).toEqual({
        target,
        status: 400,
        body: "more than one Host header",
      });
    }
  });

  test("behind middlewares that never look: served, the after-middleware's header on", async () => {
    for (const [target, body] of [
      ["/fixed", "fixed"],
      ["/p/7", "p=7"],
      ["/renew-blind", "renewed"],
    ] as const) {
      const reply = await rawExchange(guarded.port, twoHosts(target));
      expect({ target, status: reply.status, body: reply.body, after: reply.headers["x-after"] }).toEqual({
        target,
        status: 200,
        body,
        after: "1",
      });
    }
  });

  test("served by a handler whose answer never depends on the Host", async () => {
    const fixed = await rawExchange(blind.port, twoHosts("/fixed"));
    expect([fixed.status, fixed.body]).toEqual([200, "fixed"]);
    const param = await rawExchange(blind.port, twoHosts("/p/7"));
    expect([param.status, param.body]).toEqual([200, "p=7"]);
    const query = await rawExchange(blind.port, twoHosts("/query?q=3"));
    expect([query.status, query.body]).toEqual([200, "q=3"]);
    // Under an address-keyed limit too, with its headers.
    const counted = await rawExchange(limited.port, twoHosts("/fixed"));
    expect([counted.status, counted.body]).toEqual([200, "fixed"]);
    expect(counted.headers.ratelimit).toMatch(/^"app";r=\d+;t=\d+$/);
    const fresh = await rawExchange(freshIds.port, twoHosts("/fixed"));
    expect([fresh.status, fresh.body]).toEqual([200, "fixed"]);
    expect(fresh.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    // Ids that trust the client: the client's sane id is echoed, the Host never looked at.
    const trusted = await rawExchange(
      withIds.port,
      "GET /fixed HTTP/1.1\r\nHost: a\r\nHost: b\r\nX-Request-Id: abc-123\r\nConnection: close\r\n\r\n",
    );
    expect([trusted.status, trusted.body, trusted.headers["x-request-id"]]).toEqual([
      200,
      "fixed",
      "abc-123",
    ]);
    const zipped = await rawExchange(compressed.port, twoHosts("/fixed"));
    expect([zipped.status, zipped.body]).toEqual([200, "fixed"]);
  });
});

describe("the target", () => {
  test("a fragment is refused when the handler reads the query", async () => {
    const reply = await rawExchange(blind.port, get("/query?q=1#x", "a"));
    expect([reply.status, reply.body]).toEqual([400, "fragment in request target"]);
  });

  test("a fragment on a param route is refused before the handler", async () => {
    expect((await rawExchange(blind.port, get("/p/7#x", "a"))).status).toBe(400);
  });

  test("HTTP/1.0 without Host is routed by its target, on every kind of route", async () => {
    for (const [target, body] of [
      ["/fixed-url", "host="],
      ["/p-url/7", "p=7 host="],
      ["/query?q=2", "q=2"],
    ] as const) {
      const reply = await rawExchange(blind.port, `GET ${target} HTTP/1.0\r\n\r\n`);
      expect({ target, status: reply.status, body: reply.body }).toEqual({ target, status: 200, body });
    }
  });
});

describe("a route that reads only its body before the handler", () => {
  const post = (target: string, hostLines: string, body = "hi") =>
    `POST ${target} HTTP/1.1\r\n${hostLines}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;

  test("every Host line: refused when the handler looks, served with its body when it does not", async () => {
    for (const host of HOSTS) {
      const expected = hostProblem(host) === null ? 200 : 400;
      for (const server of [blind, observed, traced, withIds]) {
        const looks = await rawExchange(server.port, post("/echo-url", `Host: ${host}\r\n`));
        expect({ host, status: looks.status }).toEqual({ host, status: expected });
        const blindEcho = await rawExchange(server.port, post("/echo", `Host: ${host}\r\n`));
        expect({ host, status: blindEcho.status, body: blindEcho.body }).toEqual({
          host,
          status: 200,
          body: "echo=hi",
        });
        // With params `req.url` is read anyway, so a Host the URL shows as bad is refused then.
        const param = await rawExchange(server.port, post("/echo/7", `Host: ${host}\r\n`));
        expect({ host, status: param.status }).toEqual({ host, status: expected });
      }
    }
  });

  test("two Host lines: 400 the moment the handler looks at the URL", async () => {
    const twice = "Host: a\r\nHost: b\r\n";
    const looks = await rawExchange(blind.port, post("/echo-url", twice));
    expect([looks.status, looks.body]).toEqual([400, "more than one Host header"]);
    const served = await rawExchange(blind.port, post("/echo", twice, "abc"));
    expect([served.status, served.body]).toEqual([200, "echo=abc"]);
  });
});
