/**
 * Cross-site request protection over real HTTP (docs/security.md, "Cross-site request
 * protection"): Go's `CrossOriginProtection` rules, on by default for unsafe methods, refused
 * before the body is read, with the app's error format; the trust of listed and CORS-allowed
 * origins; and every way to turn it off.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { type ServerHandle, SubRouter, Webfw } from "../../src/index.ts";
import { curl } from "../helpers/tls.ts";

let hits = 0;
function makeApp(options: ConstructorParameters<typeof Webfw>[1] = {}) {
  const app = new Webfw(import.meta.path, options);
  app.post("/change", (request) => {
    hits++;
    return `changed ${request.body.length}`;
  });
  app.get("/read", () => "read");
  app.put("/open", () => "open", { csrf: false });
  app.delete("/partner", () => "deleted", { csrf: { trustedOrigins: ["https://partner.example"] } });
  const hooks = new SubRouter(import.meta.path, { prefix: "/hooks" }).csrf(false);
  hooks.post("/in", () => "hook");
  hooks.post("/strict", () => "strict", { csrf: true });
  app.includeRouter(hooks);
  const api = new SubRouter(import.meta.path, { prefix: "/api" });
  api.cors({ origins: ["https://spa.example"], credentials: true });
  api.post("/save", () => "saved");
  app.includeRouter(api);
  const pub = new SubRouter(import.meta.path, { prefix: "/public" });
  pub.cors();
  pub.post("/ping", () => "pong");
  app.includeRouter(pub);
  return app;
}

describe("on by default", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await makeApp().start({ port: 0, host: "127.0.0.1" });
  });
  afterAll(() => server?.stop(true));

  const post = (path: string, headers: Record<string, string>, method = "POST") =>
    fetch(`${server.url}${path}`, { method, headers, body: method === "POST" ? "abc" : undefined });

  test("Sec-Fetch-Site same-origin and none pass; cross-site and same-site get 403", async () => {
    expect((await post("/change", { "sec-fetch-site": "same-origin", origin: server.url })).status).toBe(200);
    expect((await post("/change", { "sec-fetch-site": "none" })).status).toBe(200);
    for (const site of ["cross-site", "same-site", "bogus"]) {
      const before = hits;
      const response = await post("/change", { "sec-fetch-site": site, origin: "https://evil.example" });
      expect(response.status).toBe(403);
      expect(await response.text()).toContain(`Sec-Fetch-Site is ${site}`);
      expect(hits).toBe(before);
    }
  });

  test("without Sec-Fetch-Site, Origin is compared with Host", async () => {
    expect((await post("/change", { origin: server.url })).status).toBe(200);
    const other = await post("/change", { origin: "http://127.0.0.1:1" });
    expect(other.status).toBe(403);
    expect(await other.text()).toContain("Origin http://127.0.0.1:1 does not match the host");
    expect((await post("/change", { origin: "null" })).status).toBe(403);
  });

  test("neither header (curl, servers) passes", async () => {
    const result = await curl(`${server.url}/change`, ["-X", "POST", "--data", "hello"]);
    expect(result.status).toBe(200);
    expect(result.body).toBe("changed 5");
  });

  test("safe methods are never checked", async () => {
    const response = await fetch(`${server.url}/read`, { headers: { "sec-fetch-site": "cross-site" } });
    expect(response.status).toBe(200);
  });

  test("route, router and trusted origins", async () => {
    const cross = { "sec-fetch-site": "cross-site", origin: "https://partner.example" };
    expect((await post("/open", cross, "PUT")).status).toBe(200);
    expect((await post("/partner", cross, "DELETE")).status).toBe(200);
    expect((await post("/partner", { ...cross, origin: "https://evil.example" }, "DELETE")).status).toBe(403);
    expect((await post("/hooks/in", cross)).status).toBe(200);
    expect((await post("/hooks/strict", cross)).status).toBe(403);
  });

  test("origins the router's CORS allows are trusted; cors() with any origin only without cookies", async () => {
    const spa = { "sec-fetch-site": "cross-site", origin: "https://spa.example", cookie: "sid=1" };
    const saved = await post("/api/save", spa);
    expect(saved.status).toBe(200);
    expect(saved.headers.get("access-control-allow-origin")).toBe("https://spa.example");
    expect((await post("/api/save", { ...spa, origin: "https://evil.example" })).status).toBe(403);
    const any = { "sec-fetch-site": "cross-site", origin: "https://anyone.example" };
    expect((await post("/public/ping", any)).status).toBe(200);
    expect((await post("/public/ping", { ...any, cookie: "sid=1" })).status).toBe(403);
    // The CORS of /api does not reach the app's own routes.
    expect((await post("/change", spa)).status).toBe(403);
  });

  test("refused before the body is read: a body that never comes still gets its 403 at once", async () => {
    const url = new URL(server.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          "POST /change HTTP/1.1\r\nHost: x\r\nSec-Fetch-Site: cross-site\r\nOrigin: https://evil.example\r\nContent-Length: 1000000\r\n\r\npartial",
        );
      });
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString();
        if (text.includes("\r\n\r\n")) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on("error", reject);
      setTimeout(() => reject(new Error(`no answer; got ${JSON.stringify(text)}`)), 5000);
    });
    expect(answer.startsWith("HTTP/1.1 403")).toBe(true);
  });
});

describe("error formats and switches", () => {
  test("problem details in problem mode, with the app's CORS headers", async () => {
    const app = makeApp({ errors: "problem" });
    const response = await app.request("/change", {
      method: "POST",
      headers: { "sec-fetch-site": "cross-site", origin: "https://evil.example" },
      body: "x",
    });
    expect(response.status).toBe(403);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    const problem = (await response.json()) as Record<string, unknown>;
    expect(problem.title).toBe("Cross-site request refused");
    expect(problem.status).toBe(403);
    expect(problem.detail).toContain("Sec-Fetch-Site is cross-site");
  });

  test("csrf: false on the app, app.csrf(false), and trustedOrigins on the app", async () => {
    const cross = {
      method: "POST",
      headers: { "sec-fetch-site": "cross-site", origin: "https://a.example" },
    };
    expect((await makeApp({ csrf: false }).request("/change", cross)).status).toBe(200);
    const switched = makeApp();
    switched.csrf(false);
    expect((await switched.request("/change", cross)).status).toBe(200);
    const trusting = makeApp({ csrf: { trustedOrigins: ["https://a.example"] } });
    expect((await trusting.request("/change", cross)).status).toBe(200);
    expect((await makeApp().request("/change", cross)).status).toBe(403);
  });

  test("bad settings fail with the value named", async () => {
    expect(() => new Webfw(import.meta.path, { csrf: { trustedOrigins: ["https://a.example/"] } })).toThrow(
      "is not an origin",
    );
    expect(() => new Webfw(import.meta.path, { csrf: { trusted: [] } as never })).toThrow(
      "unknown csrf option",
    );
    expect(() => new SubRouter(import.meta.path, { prefix: "/x" }).csrf("yes" as never)).toThrow(
      "csrf must be true, false",
    );
    const app = new Webfw(import.meta.path);
    app.post("/", () => "x", { csrf: { trustedOrigins: ["nope"] } });
    await expect(app.build()).rejects.toThrow("POST /: csrf.trustedOrigins");
  });
});
