/**
 * `secureHeaders` over real HTTP (docs/security.md, "Secure response headers"): the defaults on
 * every answer (errors and 404 included), HSTS and `upgrade-insecure-requests` over TLS only, a
 * fresh nonce per response that the handler and a template see, route overrides, and no work at
 * all when off.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NONCE } from "../../src/entries/secure-headers.ts";
import { HttpError, html, type ServerHandle, Webfw } from "../../src/index.ts";
import { MustacheTemplate } from "../../src/templating/index.ts";
import { makeCert, type TestCert } from "../helpers/tls.ts";

const NONCE_IN_CSP = /script-src 'self' 'nonce-([A-Za-z0-9_-]{22})'/;

function makeApp(options: ConstructorParameters<typeof Webfw>[1] = { secureHeaders: true }) {
  const dir = mkdtempSync(join(tmpdir(), "webfw-sh-"));
  writeFileSync(join(dir, "page.mustache"), '<script nonce="{{cspNonce}}">go()</script>');
  const templates = new MustacheTemplate(dir);
  const app = new Webfw(import.meta.path, options);
  app.get("/", (request) => html(`<script nonce="${request.cspNonce}">1</script>`));
  app.get("/template", (request) => html(templates.renderTemplate("page", { cspNonce: request.cspNonce })));
  app.get("/json", () => ({ ok: true }));
  app.get("/fail", () => {
    throw new HttpError(418, "teapot");
  });
  app.get("/const", () => "static", { const: true });
  app.get("/plain", () => "no headers here", { secureHeaders: false });
  app.get("/embeddable", (request) => `nonce=${String(request.cspNonce)}`, {
    secureHeaders: {
      frameOptions: false,
      contentSecurityPolicy: {
        directives: { frameAncestors: ["https://partner.example"], scriptSrc: ["'self'"] },
      },
      crossOriginResourcePolicy: "cross-origin",
    },
  });
  return { app, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

describe("secureHeaders: true over plain HTTP", () => {
  let server: ServerHandle;
  let remove: () => void;
  beforeAll(async () => {
    const made = makeApp();
    remove = made.remove;
    server = await made.app.start({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await server?.stop(true);
    remove?.();
  });

  test("the defaults on a page, and no HSTS nor upgrade-insecure-requests without TLS", async () => {
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    const h = response.headers;
    expect(h.get("x-content-type-options")).toBe("nosniff");
    expect(h.get("x-frame-options")).toBe("SAMEORIGIN");
    expect(h.get("referrer-policy")).toBe("no-referrer");
    expect(h.get("cross-origin-opener-policy")).toBe("same-origin");
    expect(h.get("cross-origin-resource-policy")).toBe("same-origin");
    expect(h.get("permissions-policy")).toContain("camera=()");
    expect(h.get("origin-agent-cluster")).toBe("?1");
    expect(h.get("strict-transport-security")).toBeNull();
    const csp = h.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain("upgrade-insecure-requests");
    const nonce = NONCE_IN_CSP.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(await response.text()).toBe(`<script nonce="${nonce}">1</script>`);
  });

  test("a new nonce for every response", async () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const csp = (await fetch(`${server.url}/`)).headers.get("content-security-policy") ?? "";
      nonces.add(NONCE_IN_CSP.exec(csp)?.[1] ?? "");
    }
    expect(nonces.size).toBe(5);
  });

  test("a template gets the nonce as a variable", async () => {
    const response = await fetch(`${server.url}/template`);
    const nonce = NONCE_IN_CSP.exec(response.headers.get("content-security-policy") ?? "")?.[1];
    expect(await response.text()).toBe(`<script nonce="${nonce}">go()</script>`);
  });

  test("errors, 404s, 405s and const routes carry them too", async () => {
    for (const [path, status] of [
      ["/fail", 418],
      ["/missing", 404],
      ["/const", 200],
      ["/json", 200],
    ] as const) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(status);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("content-security-policy")).toContain("default-src 'self'");
    }
    const wrongMethod = await fetch(`${server.url}/json`, { method: "PUT" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("x-frame-options")).toBe("SAMEORIGIN");
  });

  test("a route turns them off or changes them", async () => {
    const plain = await fetch(`${server.url}/plain`);
    expect(await plain.text()).toBe("no headers here");
    for (const name of ["content-security-policy", "x-frame-options", "x-content-type-options"]) {
      expect(plain.headers.get(name)).toBeNull();
    }
    const embeddable = await fetch(`${server.url}/embeddable`);
    expect(embeddable.headers.get("x-frame-options")).toBeNull();
    expect(embeddable.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    const csp = embeddable.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("frame-ancestors https://partner.example");
    expect(csp).toContain("script-src 'self';");
    // Its policy has no NONCE: none is made.
    expect(await embeddable.text()).toBe("nonce=undefined");
    expect(embeddable.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("secureHeaders over TLS", () => {
  let server: ServerHandle;
  let cert: TestCert;
  let remove: () => void;
  beforeAll(async () => {
    cert = await makeCert();
    const made = makeApp({
      secureHeaders: { strictTransportSecurity: { maxAge: 63072000, preload: true } },
    });
    remove = made.remove;
    server = await made.app.start({ port: 0, host: "127.0.0.1", tls: { cert: cert.cert, key: cert.key } });
  });
  afterAll(async () => {
    await server?.stop(true);
    cert?.remove();
    remove?.();
  });

  test("HSTS and upgrade-insecure-requests are sent", async () => {
    const response = await fetch(`${server.url}/json`, { tls: { rejectUnauthorized: false } } as RequestInit);
    expect(server.url.startsWith("https:")).toBe(true);
    expect(response.headers.get("strict-transport-security")).toBe(
      "max-age=63072000; includeSubDomains; preload",
    );
    expect(response.headers.get("content-security-policy")).toContain("upgrade-insecure-requests");
  });
});

describe("secureHeaders off", () => {
  test("nothing is sent and request.cspNonce is undefined", async () => {
    const { app, remove } = makeApp({});
    const response = await app.request("/json");
    expect(response.headers.get("content-security-policy")).toBeNull();
    const root = await app.request("/");
    expect(root.headers.get("x-content-type-options")).toBeNull();
    expect(await root.text()).toBe('<script nonce="undefined">1</script>');
    remove();
  });

  test("a route's object turns them on for that route alone", async () => {
    const { app, remove } = makeApp({});
    expect((await app.request("/embeddable")).headers.get("x-content-type-options")).toBe("nosniff");
    expect((await app.request("/json")).headers.get("x-content-type-options")).toBeNull();
    remove();
  });
});

describe("options", () => {
  test("directives merge, NONCE works anywhere, report-only and false drop headers", async () => {
    const app = new Webfw(import.meta.path, {
      secureHeaders: {
        contentSecurityPolicy: {
          directives: { styleSrc: ["'self'", NONCE], "img-src": false, connectSrc: ["'self'", "wss:"] },
          reportOnly: true,
        },
        referrerPolicy: "strict-origin-when-cross-origin",
        crossOriginOpenerPolicy: false,
        permissionsPolicy: { geolocation: ["self", "https://maps.example"], fullscreen: "*" },
      },
    });
    app.get("/", () => "x");
    const response = await app.request("/");
    expect(response.headers.get("content-security-policy")).toBeNull();
    const csp = response.headers.get("content-security-policy-report-only") ?? "";
    expect(csp).toMatch(/style-src 'self' 'nonce-([^']+)'/);
    expect(csp).toContain("connect-src 'self' wss:");
    expect(csp).not.toContain("img-src");
    expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(response.headers.get("cross-origin-opener-policy")).toBeNull();
    expect(response.headers.get("permissions-policy")).toBe(
      'geolocation=(self "https://maps.example"), fullscreen=*',
    );
  });

  test("bad values fail at construction or build with the value named", async () => {
    const bad: unknown[] = [
      { frameOptions: "ALLOW" },
      { referrerPolicy: "nope" },
      { strictTransportSecurity: { maxAge: -1 } },
      { strictTransportSecurity: { preload: true, maxAge: 10 } },
      { contentSecurityPolicy: { directives: { scriptSrc: ["'self'; evil"] } } },
      { contentSecurityPolicy: { directives: { "bad name": ["'self'"] } } },
      { permissionsPolicy: { camera: ["not an origin"] } },
      { sniff: true },
      "yes",
    ];
    for (const option of bad) {
      expect(() => new Webfw(import.meta.path, { secureHeaders: option as never })).toThrow(TypeError);
    }
    const app = new Webfw(import.meta.path);
    app.get("/", () => "x", { secureHeaders: { frameOptions: "NEVER" as never } });
    await expect(app.build()).rejects.toThrow("GET /: secureHeaders.frameOptions");
  });
});
