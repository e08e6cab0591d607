/**
 * The routes themselves: `/openapi.json`, `/docs` and its assets over a real
 * socket; switching them off; a supplied document; option mistakes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { type ServerHandle, t, Webfw } from "../../src/index.ts";
import { ASSET_NAMES, SWAGGER_UI_VERSION } from "../../src/openapi/assets.ts";
import { expectValidOpenApi, fetchDocument, type Json } from "./helpers.ts";

describe("over a real server", () => {
  const app = new Webfw(import.meta.path, { openapi: { title: "Served <API>" } });
  app.get("/hello/:name", ({ pathParams }) => `hi ${pathParams.name}`, { args: { n: t.int().default(1) } });
  app.addResponseHeader("x-app", "yes");
  let server: ServerHandle;
  let base: string;

  beforeAll(async () => {
    server = await app.start({ port: 0, host: "127.0.0.1" });
    base = server.url;
  });
  afterAll(async () => {
    await server?.stop(true);
  });

  test("GET /openapi.json is the JSON document, with the app's response headers", async () => {
    const response = await fetch(`${base}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("x-app")).toBe("yes");
    const doc = (await response.json()) as Json;
    expect(Object.keys(doc.paths as Json)).toEqual(["/hello/{name}"]);
    await expectValidOpenApi(doc);
  });

  test("GET /docs is an HTML page that loads local assets only", async () => {
    const response = await fetch(`${base}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const page = await response.text();
    // The title is escaped, the document URL is handed to the start script.
    expect(page).toContain("<title>Served &lt;API&gt;</title>");
    expect(page).toContain('data-openapi-url="/openapi.json"');
    const urls = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(urls.length).toBeGreaterThanOrEqual(5);
    for (const url of urls) {
      expect(url).toStartWith("/docs/assets/");
      const asset = await fetch(`${base}${url}`);
      expect(asset.status).toBe(200);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    expect(page).not.toContain("<script>");
  });

  test("assets have their types, an ETag and answer 304 on revalidation", async () => {
    const js = await fetch(`${base}/docs/assets/swagger-ui-bundle.js`);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const body = await js.text();
    expect(body.length).toBeGreaterThan(1_000_000);
    expect(body).toContain("SwaggerUIBundle");
    const etag = js.headers.get("etag") as string;
    expect(etag).toContain(SWAGGER_UI_VERSION);
    const again = await fetch(`${base}/docs/assets/swagger-ui-bundle.js`, {
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const css = await fetch(`${base}/docs/assets/swagger-ui.css`);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    const png = await fetch(`${base}/docs/assets/favicon-32x32.png`);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect([...new Uint8Array(await png.arrayBuffer()).slice(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
    const init = await (await fetch(`${base}/docs/assets/webfw-init.js`)).text();
    expect(init).toContain("validatorUrl: null");
  });

  test("unknown assets, traversal and other package files are 404, never 500", async () => {
    for (const path of [
      "/docs/assets/nope.js",
      "/docs/assets/package.json",
      "/docs/assets/swagger-ui-bundle.js.map",
      "/docs/assets/..%2F..%2Fpackage.json",
      "/docs/assets/%2E%2E%2F%2E%2E%2Fpackage.json",
      "/docs/assets/__proto__",
      "/docs/assets/constructor",
      "/docs/assets/a/b",
      "/docs/assets/%ZZ",
    ]) {
      const response = await fetch(`${base}${path}`);
      expect([400, 404]).toContain(response.status);
    }
    expect((await fetch(`${base}/docs/assets/nope.js`)).status).toBe(404);
    expect(ASSET_NAMES).toContain("swagger-ui-bundle.js");
  });

  test("other methods get 405, and HEAD works", async () => {
    const post = await fetch(`${base}/openapi.json`, { method: "POST" });
    expect(post.status).toBe(405);
    const head = await fetch(`${base}/docs`, { method: "HEAD" });
    expect(head.status).toBe(200);
  });
});

describe("switching it off", () => {
  afterEach(() => {
    delete process.env.WEBFW_DISABLE_OPENAPI;
  });

  const appWith = (options?: ConstructorParameters<typeof Webfw>[1]) => {
    const app = new Webfw(import.meta.path, options);
    app.get("/", () => "home");
    return app;
  };

  const expectOff = async (app: Webfw) => {
    app.resetRequestClient();
    for (const path of [
      "/openapi.json",
      "/docs",
      "/docs/assets/swagger-ui.css",
      "/docs/assets/swagger-ui-bundle.js",
    ]) {
      const response = await app.request(path);
      expect(response.status).toBe(404);
    }
    expect((await app.request("/")).status).toBe(200);
  };

  test("openapi: false", async () => {
    await expectOff(appWith({ openapi: false }));
  });

  test("WEBFW_DISABLE_OPENAPI=1 (what --disable-openapi sets)", async () => {
    process.env.WEBFW_DISABLE_OPENAPI = "1";
    await expectOff(appWith());
  });

  test("on by default, and an explicit empty env value does not disable it", async () => {
    process.env.WEBFW_DISABLE_OPENAPI = "";
    const app = appWith();
    expect((await app.request("/openapi.json")).status).toBe(200);
    expect((await app.request("/docs")).status).toBe(200);
  });

  test("turned off in config before a rebuild", async () => {
    const app = appWith();
    expect((await app.request("/docs")).status).toBe(200);
    (app.config as { openapi: false }).openapi = false;
    await expectOff(app);
  });
});

describe("paths, rebuilds and the app's own routes", () => {
  test("custom path and docsPath", async () => {
    const app = new Webfw(import.meta.path, { openapi: { path: "/api/spec.json", docsPath: "/reference/" } });
    app.get("/x", () => "x");
    await fetchDocument(app, "/api/spec.json");
    const page = await (await app.request("/reference")).text();
    expect(page).toContain('data-openapi-url="/api/spec.json"');
    expect(page).toContain('href="/reference/assets/swagger-ui.css"');
    expect((await app.request("/reference/assets/swagger-ui.css")).status).toBe(200);
    expect((await app.request("/openapi.json")).status).toBe(404);
    expect((await app.request("/docs")).status).toBe(404);
  });

  test("building twice is fine, and a rebuild documents routes added since", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/first", () => "1");
    expect(Object.keys((await fetchDocument(app)).paths as Json)).toEqual(["/first"]);
    await app.build();
    app.get("/second", () => "2");
    app.resetRequestClient();
    expect(Object.keys((await fetchDocument(app)).paths as Json)).toEqual(["/first", "/second"]);
    // Nothing was registered on the app: the path is still free for the app to claim.
    app.get("/docs", () => "my own docs");
    app.resetRequestClient();
    expect(await (await app.request("/docs")).text()).toBe("my own docs");
  });

  test("path-scoped middlewares apply to the docs routes (e.g. to protect them)", async () => {
    const app = new Webfw(import.meta.path);
    const guard = (request: { headers: { get(name: string): string | null } }) =>
      request.headers.get("x-key") === "k"
        ? undefined
        : new globalThis.Response("Forbidden", { status: 403 });
    app.beforeRequest("/openapi.json", guard);
    app.beforeRequest("/docs", guard);
    expect((await app.request("/openapi.json")).status).toBe(403);
    expect((await app.request("/docs")).status).toBe(403);
    expect((await app.request("/openapi.json", { headers: { "x-key": "k" } })).status).toBe(200);
  });

  test("a GET route of the app on one of the paths wins and stays documented", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/openapi.json", () => ({ mine: true }));
    expect(await (await app.request("/openapi.json")).json()).toEqual({ mine: true });
    expect((await app.request("/docs")).status).toBe(200);
  });
});

describe("a supplied document", () => {
  const dir = mkdtempSync(join(tmpdir(), "webfw-openapi-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const supplied = {
    openapi: "3.1.0",
    info: { title: "Hand written", version: "9.9.9" },
    paths: { "/only": { get: { responses: { "200": { description: "ok" } } } } },
  };

  test("an object replaces generation", async () => {
    const app = new Webfw(import.meta.path, { openapi: { document: supplied } });
    app.get("/generated-would-show-this", () => "x");
    const doc = await fetchDocument(app);
    expect(doc).toEqual(supplied);
    await expectValidOpenApi(doc);
    expect(await (await app.request("/docs")).text()).toContain("<title>Hand written</title>");
  });

  test("a JSON file, absolute or relative to the app's main file", async () => {
    writeFileSync(join(dir, "spec.json"), JSON.stringify(supplied));
    const absolute = new Webfw(import.meta.path, { openapi: { document: join(dir, "spec.json") } });
    expect(await fetchDocument(absolute)).toEqual(supplied);
    const relative = new Webfw(join(dir, "app.ts"), { openapi: { document: "./spec.json" } });
    expect(await fetchDocument(relative)).toEqual(supplied);
  });

  test("a missing file, bad JSON or a non-OpenAPI object fails at build with a clear message", async () => {
    writeFileSync(join(dir, "bad.json"), "{ not json");
    writeFileSync(join(dir, "array.json"), "[1, 2]");
    const build = (document: Record<string, unknown> | string) =>
      new Webfw(join(dir, "app.ts"), { openapi: { document } }).build();
    await expect(build("missing.json")).rejects.toThrow("cannot be read");
    await expect(build("bad.json")).rejects.toThrow("is not valid JSON");
    await expect(build("array.json")).rejects.toThrow("must be a JSON object");
    await expect(build({ swagger: "2.0" })).rejects.toThrow("no 'openapi' version string");
  });
});

describe("option mistakes are caught by the constructor", () => {
  const make = (openapi: unknown) => () => new Webfw(import.meta.path, { openapi } as never);
  test.each([
    [{ titel: "x" }, "unknown openapi option 'titel'"],
    ["yes", "openapi must be false or an options object"],
    [{ path: "openapi.json" }, "must be a path starting with '/'"],
    [{ docsPath: "/docs/:page" }, "must be a plain path"],
    [{ path: "/same", docsPath: "/same/" }, "must differ"],
    [{ title: 3 }, "openapi.title must be a string"],
    [{ document: 42 }, "openapi.document must be"],
    [{ document: "" }, "openapi.document must be"],
  ])("%j", (openapi, message) => {
    expect(make(openapi)).toThrow(message);
  });

  test("true and undefined mean the defaults", async () => {
    const app = new Webfw(import.meta.path, { openapi: true } as never);
    expect((await app.request("/openapi.json")).status).toBe(200);
  });
});

describe("the validator used by these tests", () => {
  test("rejects a broken document (so a broken generator would fail)", async () => {
    const validator = new Validator();
    const result = await validator.validate({ openapi: "3.1.0", info: { title: "x" }, paths: { nope: {} } });
    expect(result.valid).toBe(false);
  });
});
