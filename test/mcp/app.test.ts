/**
 * The endpoint as the app serves it: `app.mcp` registrations reach `POST /mcp`
 * through the core (routing, `configureAuthentication`), with no other setup.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AuthenticationHandler, BearerGetter, Identity, type Request, t, Webfw } from "../../src/index.ts";

class TokenAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    return this.tokenGetter.getToken(request) === "secret" ? new Identity({ claims: { sub: "u1" } }) : null;
  }
}

const rpc = (id: number, method: string, params?: unknown) =>
  JSON.stringify(
    params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params },
  );

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
}

describe("app.mcp through the app", () => {
  const app = new Webfw(import.meta.path);
  app.mcp.tool(({ a, b }) => String(a + b), { name: "add", args: { a: t.int(), b: t.int() } });
  app.get("/", () => "home");
  let base: string;
  let stop: () => unknown;

  beforeAll(async () => {
    const server = await app.start({ port: 0, host: "127.0.0.1" });
    base = `http://127.0.0.1:${server.port}`;
    stop = () => server.stop();
  });
  afterAll(async () => {
    await stop?.();
  });

  test("POST /mcp answers JSON-RPC once a tool is registered", async () => {
    const init = await post(`${base}/mcp`, rpc(0, "initialize", { protocolVersion: "2025-06-18" }));
    expect(init.status).toBe(200);
    expect(init.headers.get("content-type")).toBe("application/json");
    const body = await init.json();
    expect(body.id).toBe(0);
    expect(body.result.protocolVersion).toBe("2025-06-18");
    const call = await post(`${base}/mcp`, rpc(1, "tools/call", { name: "add", arguments: { a: 1, b: 2 } }));
    expect((await call.json()).result).toEqual({ content: [{ type: "text", text: "3" }], isError: false });
  });

  test("GET and DELETE /mcp: 405 with Allow: POST; malformed JSON: 400", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${base}/mcp`, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      await response.body?.cancel();
    }
    const broken = await post(`${base}/mcp`, "{nope");
    expect(broken.status).toBe(400);
    expect((await broken.json()).error.code).toBe(-32700);
  });

  test("other routes are untouched", async () => {
    const response = await fetch(`${base}/`);
    expect(await response.text()).toBe("home");
  });
});

describe("an app without MCP registrations", () => {
  test("has no /mcp endpoint", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/", () => "home");
    const server = await app.start({ port: 0, host: "127.0.0.1" });
    try {
      const response = await post(`http://127.0.0.1:${server.port}/mcp`, rpc(1, "ping"));
      expect(response.status).toBe(404);
      await response.body?.cancel();
    } finally {
      await server.stop();
    }
  });
});

describe("configure({ authRequired: true }) uses the app's authentication", () => {
  const app = new Webfw(import.meta.path);
  app.configureAuthentication(new TokenAuth(new BearerGetter()));
  app.mcp.configure({ authRequired: true });
  app.mcp.tool(function whoami() {
    return "you";
  });
  let url: string;
  let stop: () => unknown;

  beforeAll(async () => {
    const server = await app.start({ port: 0, host: "127.0.0.1" });
    url = `http://127.0.0.1:${server.port}/mcp`;
    stop = () => server.stop();
  });
  afterAll(async () => {
    await stop?.();
  });

  test("no or a wrong token: 401 with WWW-Authenticate: Bearer", async () => {
    for (const headers of [{}, { authorization: "Bearer wrong" }] as Record<string, string>[]) {
      const response = await post(url, rpc(1, "tools/list"), headers);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      await response.body?.cancel();
    }
  });

  test("the right token passes", async () => {
    const response = await post(url, rpc(1, "tools/call", { name: "whoami" }), {
      authorization: "Bearer secret",
    });
    expect(response.status).toBe(200);
    expect((await response.json()).result.content[0].text).toBe("you");
  });
});
