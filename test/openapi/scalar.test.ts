/**
 * `openapi: { docsUi: "scalar" }` without a browser (docs/openapi.md): the page, its two assets
 * over a real server, the option's checks, and Swagger UI staying the default.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { scalarBundle } from "../../src/openapi/scalar.ts";

describe("docsUi: scalar over a real server", () => {
  const app = new Webfw(import.meta.path, {
    openapi: { title: "Scalar <API>", docsUi: "scalar", docsPath: "/ref" },
  });
  app.get("/hello", () => "hi");
  let server: ServerHandle;
  beforeAll(async () => {
    server = await app.start({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await server?.stop(true);
  });

  test("the page loads Scalar's bundle and webfw's start script from the app, title escaped", async () => {
    const response = await fetch(`${server.url}/ref`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    expect(html).toContain("<title>Scalar &lt;API&gt;</title>");
    expect(html).toContain('<script src="/ref/assets/scalar-standalone.js"');
    expect(html).toContain('<script src="/ref/assets/webfw-scalar-init.js"');
    expect(html).toContain('data-openapi-url="/openapi.json"');
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toContain("swagger");
  });

  test("the start script turns fonts and telemetry off; the bundle is the package's", async () => {
    const init = await fetch(`${server.url}/ref/assets/webfw-scalar-init.js`);
    expect(init.status).toBe(200);
    const script = await init.text();
    expect(script).toContain("withDefaultFonts: false");
    expect(script).toContain("telemetry: false");
    const bundle = await fetch(`${server.url}/ref/assets/scalar-standalone.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const { version } = scalarBundle();
    expect(version).toBe("1.76.0");
    expect(bundle.headers.get("etag")).toBe(`"scalar-${version}-scalar-standalone.js"`);
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
  });

  test("no other file is reachable", async () => {
    for (const name of ["swagger-ui-bundle.js", "package.json", "..%2Fpackage.json", "standalone.js"]) {
      expect((await fetch(`${server.url}/ref/assets/${name}`)).status).toBe(404);
    }
  });
});

describe("the option", () => {
  test("Swagger UI stays the default", async () => {
    const app = new Webfw(import.meta.path);
    const html = await (await app.request("/docs")).text();
    expect(html).toContain("swagger-ui-bundle.js");
    expect(html).not.toContain("scalar");
  });

  test("anything but swagger or scalar is refused at construction", () => {
    // @ts-expect-error: not a UI webfw serves
    expect(() => new Webfw(import.meta.path, { openapi: { docsUi: "redoc" } })).toThrow(
      'openapi.docsUi must be "swagger" or "scalar", got "redoc"',
    );
  });
});
