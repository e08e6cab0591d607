import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CorsOptions } from "../../src/entries/cors.ts";
import { HttpError, type ServerHandle, Webfw } from "../../src/index.ts";

const GOOD = "https://good.example";
const CORS_HEADERS = [
  "access-control-allow-origin",
  "access-control-allow-credentials",
  "access-control-allow-methods",
  "access-control-allow-headers",
  "access-control-expose-headers",
  "access-control-max-age",
];

function corsApp(options: CorsOptions): Webfw {
  const app = new Webfw(import.meta.path);
  app.cors(options);
  app.get("/items", () => ["a", "b"]);
  app.put("/items", () => "put");
  app.get("/boom", () => {
    throw new Error("hidden");
  });
  app.get("/teapot", () => {
    throw new HttpError(418, "I'm a teapot");
  });
  app.get("/varied", () => new Response("v", { headers: { vary: "Accept-Encoding" } }));
  app.options("/custom-options", () => "custom handler");
  return app;
}

function preflight(origin: string | null, method: string, headers?: string): RequestInit {
  const init: Record<string, string> = { "access-control-request-method": method };
  if (origin !== null) init.origin = origin;
  if (headers !== undefined) init["access-control-request-headers"] = headers;
  return { method: "OPTIONS", headers: init };
}

function corsHeadersOf(response: globalThis.Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CORS_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) out[name] = value;
  }
  return out;
}

describe("cors() validates its options", () => {
  const app = () => new Webfw(import.meta.path);
  test("origins must be real origins", () => {
    expect(() => app().cors({ origins: ["https://good.example/"] })).toThrow(/no path or trailing slash/);
    expect(() => app().cors({ origins: ["good.example"] })).toThrow(/not an origin/);
    expect(() => app().cors({ origins: ["https://good.example/api"] })).toThrow(/not an origin/);
    expect(() => app().cors({ origins: [GOOD, "*"] })).toThrow(/alone/);
    expect(() => app().cors({ origins: [42 as unknown as string] })).toThrow(/string/);
  });
  test("names, maxAge and credential rules", () => {
    expect(() => app().cors({ methods: ["GET POST"] })).toThrow(/invalid name/);
    expect(() => app().cors({ headers: ["x-a\r\n"] })).toThrow(/invalid name/);
    expect(() => app().cors({ exposeHeaders: "*", credentials: true })).toThrow(/exposeHeaders/);
    expect(() => app().cors({ maxAge: -1 })).toThrow(/maxAge/);
    expect(() => app().cors({ maxAge: 1.5 })).toThrow(/maxAge/);
  });
  test("configuring twice is an error", () => {
    const once = app().cors();
    expect(() => once.cors({})).toThrow(/already configured/);
  });
});

describe("CORS with an origin list and credentials", () => {
  let server: ServerHandle;
  const call = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);
  beforeAll(async () => {
    server = await corsApp({
      origins: [GOOD, "https://other.example:8443"],
      credentials: true,
      headers: ["Content-Type", "X-Token"],
      exposeHeaders: ["X-Total"],
      maxAge: 600,
    }).start({ port: 0, host: "127.0.0.1" });
  });
  afterAll(() => server.stop(true));

  test("preflight from an allowed origin: 204 with every CORS header", async () => {
    const response = await call("/items", preflight(GOOD, "PUT", "content-type, x-token"));
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(corsHeadersOf(response)).toEqual({
      "access-control-allow-origin": GOOD,
      "access-control-allow-credentials": "true",
      "access-control-allow-methods": "GET, HEAD, POST, PUT, PATCH, DELETE",
      "access-control-allow-headers": "content-type, x-token",
      "access-control-max-age": "600",
    });
    expect(response.headers.get("vary")).toBe("Origin");
  });

  test("origins with a port match exactly, case-insensitively", async () => {
    const ok = await call("/items", preflight("https://OTHER.example:8443", "GET"));
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://OTHER.example:8443");
    const wrongPort = await call("/items", preflight("https://other.example", "GET"));
    expect(wrongPort.status).toBe(403);
  });

  test("spoofed and disallowed origins get 403 and no CORS headers", async () => {
    for (const origin of [
      "https://evil.example",
      "https://good.example.evil",
      "https://evilgood.example",
      "http://good.example",
      "https://good.example:444",
      "null",
      "",
      "https://good.example/",
    ]) {
      const response = await call("/items", preflight(origin, "GET"));
      expect(response.status).toBe(403);
      expect(await response.text()).toBe("CORS: origin not allowed");
      expect(corsHeadersOf(response)).toEqual({});
      expect(response.headers.get("vary")).toBe("Origin");
    }
  });

  test("a method or header outside the lists is refused; safelisted methods always pass", async () => {
    const purge = await call("/items", preflight(GOOD, "PURGE"));
    expect(purge.status).toBe(403);
    expect(await purge.text()).toBe("CORS: method 'PURGE' is not allowed");
    expect(corsHeadersOf(purge)).toEqual({});
    const header = await call("/items", preflight(GOOD, "PUT", "x-token, x-evil"));
    expect(header.status).toBe(403);
    expect(await header.text()).toBe("CORS: request header 'x-evil' is not allowed");
    expect((await call("/items", preflight(GOOD, "POST", "X-TOKEN"))).status).toBe(204);
  });

  test("malformed preflight headers are a 400", async () => {
    const method = await call("/items", preflight(GOOD, "P U T"));
    expect(method.status).toBe(400);
    expect(await method.text()).toBe("CORS: malformed Access-Control-Request-Method");
    const headers = await call("/items", preflight(GOOD, "PUT", "x-token, bad header"));
    expect(headers.status).toBe(400);
    expect(await headers.text()).toBe("CORS: malformed Access-Control-Request-Headers");
  });

  test("preflights are answered on unknown paths and before a route's own OPTIONS handler", async () => {
    const unknown = await call("/no/such/path", preflight(GOOD, "PUT"));
    expect(unknown.status).toBe(204);
    expect(unknown.headers.get("access-control-allow-origin")).toBe(GOOD);
    const custom = await call("/custom-options", preflight(GOOD, "PUT"));
    expect(custom.status).toBe(204);
    expect(await custom.text()).toBe("");
    expect(custom.headers.get("access-control-allow-methods")).toBe("GET, HEAD, POST, PUT, PATCH, DELETE");
  });

  test("OPTIONS without Access-Control-Request-Method is not a preflight", async () => {
    const plain = await call("/items", { method: "OPTIONS", headers: { origin: GOOD } });
    expect(plain.status).toBe(204);
    expect(plain.headers.get("allow")).toBe("GET, PUT, HEAD, OPTIONS");
    expect(plain.headers.get("access-control-allow-methods")).toBeNull();
    expect(plain.headers.get("access-control-allow-origin")).toBe(GOOD);
    const custom = await call("/custom-options", { method: "OPTIONS", headers: { origin: GOOD } });
    expect(await custom.text()).toBe("custom handler");
    // Without Origin, even with the request-method header, it is not a preflight.
    const noOrigin = await call("/items", preflight(null, "PUT"));
    expect(noOrigin.status).toBe(204);
    expect(noOrigin.headers.get("allow")).toBe("GET, PUT, HEAD, OPTIONS");
    expect(corsHeadersOf(noOrigin)).toEqual({});
  });

  test("an actual request from an allowed origin: origin echoed, credentials, exposed headers, Vary", async () => {
    const response = await call("/items", { headers: { origin: GOOD } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(["a", "b"]);
    expect(corsHeadersOf(response)).toEqual({
      "access-control-allow-origin": GOOD,
      "access-control-allow-credentials": "true",
      "access-control-expose-headers": "X-Total",
    });
    expect(response.headers.get("vary")).toBe("Origin");
  });

  test("an actual request from a disallowed or absent origin: no CORS headers, still Vary: Origin", async () => {
    for (const headers of [
      { origin: "https://evil.example" },
      { origin: "https://good.example.evil" },
      { origin: "null" },
      {},
    ]) {
      const response = await call("/items", { headers: headers as Record<string, string> });
      expect(response.status).toBe(200);
      expect(corsHeadersOf(response)).toEqual({});
      expect(response.headers.get("vary")).toBe("Origin");
    }
  });

  test("error responses carry the CORS headers too (404, 405, 418, 500)", async () => {
    const cases: [string, RequestInit, number][] = [
      ["/no/such/path", {}, 404],
      ["/items", { method: "DELETE" }, 405],
      ["/teapot", {}, 418],
      ["/boom", {}, 500],
    ];
    for (const [path, init, status] of cases) {
      const response = await call(path, { ...init, headers: { origin: GOOD } });
      expect(response.status).toBe(status);
      expect(response.headers.get("access-control-allow-origin")).toBe(GOOD);
      expect(response.headers.get("access-control-allow-credentials")).toBe("true");
      expect(response.headers.get("vary")).toBe("Origin");
    }
  });

  test("HEAD gets the headers, and an existing Vary is extended, not replaced", async () => {
    const head = await call("/items", { method: "HEAD", headers: { origin: GOOD } });
    expect(head.status).toBe(200);
    expect(head.headers.get("access-control-allow-origin")).toBe(GOOD);
    const varied = await call("/varied", { headers: { origin: GOOD } });
    expect(varied.headers.get("vary")).toBe("Accept-Encoding, Origin");
  });
});

describe('CORS with origins "*"', () => {
  test("without credentials: a literal * on every response, no Vary; the asked method and headers are echoed", async () => {
    const server = await corsApp({}).start({ port: 0, host: "127.0.0.1" });
    try {
      for (const headers of [{ origin: "https://anyone.example" }, { origin: "null" }, {}]) {
        const response = await fetch(`${server.url}/items`, { headers: headers as Record<string, string> });
        expect(corsHeadersOf(response)).toEqual({ "access-control-allow-origin": "*" });
        expect(response.headers.get("vary")).toBeNull();
      }
      const pre = await fetch(
        `${server.url}/items`,
        preflight("https://anyone.example", "PUT", "X-Custom, Content-Type"),
      );
      expect(pre.status).toBe(204);
      expect(corsHeadersOf(pre)).toEqual({
        "access-control-allow-origin": "*",
        "access-control-allow-methods": "GET, HEAD, POST, PUT, PATCH, DELETE",
        "access-control-allow-headers": "x-custom, content-type",
      });
      expect(pre.headers.get("vary")).toBe("Access-Control-Request-Headers");
    } finally {
      await server.stop(true);
    }
  });

  test("with credentials: the origin is echoed instead of *, never null, never a malformed origin", async () => {
    const server = await corsApp({ origins: "*", credentials: true, methods: "*" }).start({
      port: 0,
      host: "127.0.0.1",
    });
    try {
      const response = await fetch(`${server.url}/items`, { headers: { origin: "https://anyone.example" } });
      expect(corsHeadersOf(response)).toEqual({
        "access-control-allow-origin": "https://anyone.example",
        "access-control-allow-credentials": "true",
      });
      expect(response.headers.get("vary")).toBe("Origin");
      const pre = await fetch(`${server.url}/items`, preflight("https://anyone.example", "PURGE"));
      expect(pre.status).toBe(204);
      expect(pre.headers.get("access-control-allow-origin")).toBe("https://anyone.example");
      expect(pre.headers.get("access-control-allow-methods")).toBe("PURGE");
      expect(pre.headers.get("vary")).toBe(
        "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
      );
      for (const origin of ["null", "not an origin", "https://a.example/path", "javascript:alert(1)"]) {
        const denied = await fetch(`${server.url}/items`, { headers: { origin } });
        expect(corsHeadersOf(denied)).toEqual({});
        expect((await fetch(`${server.url}/items`, preflight(origin, "GET"))).status).toBe(403);
      }
    } finally {
      await server.stop(true);
    }
  });
});

describe("CORS with a RegExp or a function", () => {
  test("a RegExp must match the whole origin", async () => {
    // Deliberately unanchored: the framework anchors it.
    const server = await corsApp({ origins: /https:\/\/([a-z]+\.)?good\.example/g }).start({
      port: 0,
      host: "127.0.0.1",
    });
    try {
      for (const origin of [GOOD, "https://api.good.example", GOOD]) {
        const response = await fetch(`${server.url}/items`, { headers: { origin } });
        expect(response.headers.get("access-control-allow-origin")).toBe(origin);
      }
      for (const origin of [
        "https://good.example.evil",
        "https://evil.example?https://good.example",
        "xhttps://good.example",
        "null",
      ]) {
        const response = await fetch(`${server.url}/items`, { headers: { origin } });
        expect(response.headers.get("access-control-allow-origin")).toBeNull();
        expect((await fetch(`${server.url}/items`, preflight(origin, "GET"))).status).toBe(403);
      }
    } finally {
      await server.stop(true);
    }
  });

  test("an async function decides, and may allow null explicitly", async () => {
    const seen: string[] = [];
    const server = await corsApp({
      origins: async (origin) => {
        seen.push(origin);
        return origin === "null" || origin.endsWith(".trusted.example");
      },
    }).start({ port: 0, host: "127.0.0.1" });
    try {
      const ok = await fetch(`${server.url}/items`, { headers: { origin: "https://app.trusted.example" } });
      expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.trusted.example");
      const nullOrigin = await fetch(`${server.url}/items`, preflight("null", "GET"));
      expect(nullOrigin.status).toBe(204);
      expect(nullOrigin.headers.get("access-control-allow-origin")).toBe("null");
      const no = await fetch(`${server.url}/items`, { headers: { origin: "https://trusted.example.evil" } });
      expect(no.headers.get("access-control-allow-origin")).toBeNull();
      expect(seen).toContain("https://trusted.example.evil");
    } finally {
      await server.stop(true);
    }
  });
});
