/**
 * `ipFilter` over real HTTP (docs/client-address.md#ip-filters): on the app, a SubRouter and a
 * route; allow and deny lists of both families with mapped addresses folded; the 403 as text and
 * as problem details through the app-global middlewares; the client's address from `trustProxy`;
 * a large body from a denied address never read; bad lists refused at start.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type ServerHandle, SubRouter, Webfw, type WebfwOptions } from "../../src/index.ts";
import { rawExchange } from "../security/raw-client.ts";

const servers: ServerHandle[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop(true);
});

async function serve(app: Webfw, host = "127.0.0.1"): Promise<ServerHandle> {
  const server = await app.start({ host, port: 0, accessLog: false });
  servers.push(server);
  return server;
}

const FORBIDDEN = "This address may not use this resource.";

describe("where a filter applies", () => {
  test("on the app: every route, 404s and 405s included, answer 403 to a denied address", async () => {
    const app = new Webfw(import.meta.path, { ipFilter: { deny: ["127.0.0.0/8"] } });
    let ran = 0;
    app.get("/", () => {
      ran++;
      return "ok";
    });
    app.get("/const", () => "const", { const: true });
    const server = await serve(app);
    for (const [method, path] of [
      ["GET", "/"],
      ["GET", "/const"],
      ["GET", "/missing"],
      ["DELETE", "/"],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, { method });
      expect(response.status).toBe(403);
      expect(await response.text()).toBe(FORBIDDEN);
    }
    expect(ran).toBe(0);
  });

  test("allow lists: only what they name passes; a router's and a route's filters add to the app's", async () => {
    const app = new Webfw(import.meta.path, { ipFilter: { allow: ["127.0.0.0/8", "::1"] } });
    app.get("/open", () => "open");
    app.get("/nobody", () => "no", { ipFilter: { allow: ["203.0.113.0/24"] } });
    app.get("/public", () => "public", { ipFilter: false });
    const admin = new SubRouter(import.meta.path, { prefix: "/admin", ipFilter: { deny: ["127.0.0.1"] } });
    admin.get("/", () => "admin");
    admin.get("/health", () => "fine", { ipFilter: false });
    app.includeRouter(admin);
    // The method spelling, on a router made without the option.
    const ops = new SubRouter(import.meta.path, { prefix: "/ops" }).ipFilter({ allow: ["192.0.2.0/24"] });
    ops.get("/", () => "ops");
    app.includeRouter(ops);
    const server = await serve(app);
    const status = async (path: string) => (await fetch(`${server.url}${path}`)).status;
    expect(await status("/open")).toBe(200);
    // The route's allow list is on top of the app's: both must pass.
    expect(await status("/nobody")).toBe(403);
    expect(await status("/public")).toBe(200);
    expect(await status("/admin")).toBe(403);
    expect(await status("/admin/health")).toBe(200);
    expect(await status("/ops")).toBe(403);
  });

  test("an IPv6 server: IPv6 ranges match, and the same rule in IPv4-mapped form matches an IPv4 peer", async () => {
    const v6 = new Webfw(import.meta.path, { ipFilter: { deny: ["::/127"] } });
    v6.get("/", () => "ok");
    const six = await serve(v6, "::1");
    expect((await fetch(`${six.url}/`)).status).toBe(403);
    // A dual-stack socket reports 127.0.0.1 as ::ffff:127.0.0.1: both spellings are one address.
    const dual = new Webfw(import.meta.path, { ipFilter: { deny: ["::ffff:127.0.0.1"] } });
    dual.get("/", () => "ok");
    const both = await serve(dual, "::");
    const port = new URL(both.url).port;
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(403);
    expect((await fetch(`http://[::1]:${port}/`)).status).toBe(200);
  });
});

describe("the refusal", () => {
  test("problem details in that error mode, through the app-global middlewares and headers", async () => {
    const app = new Webfw(import.meta.path, { errors: "problem", requestId: true });
    app.setResponseHeader("x-app", "yes");
    app.afterRequest((response) => {
      response.headers.set("x-after", "ran");
      return response;
    });
    app.post("/", () => "ok", { ipFilter: { deny: ["127.0.0.1"] } });
    const server = await serve(app);
    const response = await fetch(`${server.url}/`, { method: "POST", body: "x" });
    expect(response.status).toBe(403);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.headers.get("x-app")).toBe("yes");
    expect(response.headers.get("x-after")).toBe("ran");
    expect(response.headers.get("x-request-id")).toBeTruthy();
    expect(await response.json()).toMatchObject({ status: 403, title: "Forbidden", detail: FORBIDDEN });
  });

  test("a large POST from a denied address gets 403 before its body is read", async () => {
    // The body limit is above the declared length, so nothing but the filter answers early.
    const app = new Webfw(import.meta.path, { maxBodySize: 512 * 1024 * 1024, bodyReadTimeoutMs: 0 });
    // The refusal runs the app-global middlewares (like a 404) with no body; the route's handler never runs.
    const bodiesSeen: number[] = [];
    app.beforeRequest((request) => {
      bodiesSeen.push(request.body.length);
    });
    let handled = 0;
    app.post(
      "/upload",
      (request) => {
        handled++;
        return `read ${request.body.length}`;
      },
      { ipFilter: { deny: ["127.0.0.1"] } },
    );
    app.post("/open", (request) => `read ${request.body.length}`);
    const server = await serve(app);
    const port = Number(new URL(server.url).port);
    const head = (path: string) =>
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 268435456\r\n\r\n`;
    // 256 MiB announced, 16 bytes sent: an answer can only come from a server that does not wait for the rest.
    const reply = await rawExchange(port, [head("/upload"), "0123456789abcdef"], { waitMs: 10_000 });
    expect(reply.status).toBe(403);
    expect(reply.body).toBe(FORBIDDEN);
    expect(handled).toBe(0);
    expect(bodiesSeen).toEqual([0]);
    // The same request to a route without the filter waits for its body: no answer in that time.
    const waiting = await rawExchange(port, [head("/open"), "0123456789abcdef"], { waitMs: 300 });
    expect(waiting.status).toBe(0);
  });
});

describe("behind trusted proxies", () => {
  test("the filter reads the client's address the proxies report, mapped spellings folded", async () => {
    const app = new Webfw(import.meta.path, {
      trustProxy: ["127.0.0.1"],
      ipFilter: { deny: ["203.0.113.0/24", "2001:db8:bad::/48"] },
    });
    app.get("/", (request) => request.ipAddr);
    const server = await serve(app);
    const get = (xff: string) => fetch(`${server.url}/`, { headers: { "x-forwarded-for": xff } });
    expect((await get("203.0.113.9")).status).toBe(403);
    expect((await get("::ffff:203.0.113.9")).status).toBe(403);
    expect((await get("2001:db8:bad:1::1")).status).toBe(403);
    const allowed = await get("198.51.100.1");
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toBe("198.51.100.1");
    // A client cannot write its way out: the proxy's entry is right of the forged one.
    expect((await get("198.51.100.1, 203.0.113.9")).status).toBe(403);
  });
});

describe("mistakes", () => {
  test("a bad list is a TypeError when the app or router is made, and at start for a route", async () => {
    const make = (ipFilter: unknown) => () => new Webfw(import.meta.path, { ipFilter } as WebfwOptions);
    expect(make({ deny: ["10.0.0.0/40"] })).toThrow(
      new TypeError("ipFilter of the app: deny: '10.0.0.0/40' has a bad prefix length (0–32)"),
    );
    expect(make({ allow: ["not-an-ip"] })).toThrow(/'not-an-ip' is not an IP address or CIDR range/);
    expect(make({ allow: "10.0.0.0/8" })).toThrow(/must be a list/);
    expect(make({})).toThrow(/give allow, deny or both/);
    expect(make({ block: [] })).toThrow(/unknown option 'block'/);
    expect(make(["10.0.0.0/8"])).toThrow(/must be \{ allow\?, deny\? \} or false/);
    expect(
      () => new SubRouter(import.meta.path, { prefix: "/x", ipFilter: { deny: ["fd00::/129"] } }),
    ).toThrow(/ipFilter of router \/x: deny: 'fd00::\/129' has a bad prefix length/);
    expect(() => new Webfw(import.meta.path).ipFilter({ deny: ["::1/200"] })).toThrow(
      /ipFilter of the app: deny: '::1\/200' has a bad prefix length \(0–128\)/,
    );
    const app = new Webfw(import.meta.path);
    app.get("/", () => "ok", { ipFilter: { allow: ["300.1.1.1"] } });
    await expect(app.start({ port: 0 })).rejects.toThrow(/ipFilter of GET \/: allow: '300.1.1.1'/);
  });
});
