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

  test("POST /mcp: initialize opens a session; calls carry Mcp-Session-Id; answers are JSON", async () => {
    const init = await post(
      `${base}/mcp`,
      rpc(0, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      }),
    );
    expect(init.status).toBe(200);
    expect(init.headers.get("content-type")).toBe("application/json");
    const session = init.headers.get("mcp-session-id") ?? "";
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    const body = await init.json();
    expect(body.id).toBe(0);
    expect(body.result.protocolVersion).toBe("2025-06-18");
    const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" };
    const call = await post(
      `${base}/mcp`,
      rpc(1, "tools/call", { name: "add", arguments: { a: 1, b: 2 } }),
      headers,
    );
    expect(call.status).toBe(200);
    expect((await call.json()).result).toEqual({ content: [{ type: "text", text: "3" }], isError: false });
    // Without the session header a request is answered on its own (no handshake needed); an unknown session is 404.
    const bare = await post(`${base}/mcp`, rpc(2, "tools/list"));
    expect(bare.status).toBe(200);
    expect(bare.headers.get("mcp-session-id")).toBeNull();
    expect((await bare.json()).result.tools[0].name).toBe("add");
    const unknown = await post(`${base}/mcp`, rpc(3, "tools/list"), { "mcp-session-id": "nope" });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe(-32001);
    // DELETE ends the session: the next call with its id is 404.
    const ended = await fetch(`${base}/mcp`, { method: "DELETE", headers });
    expect(ended.status).toBe(200);
    await ended.body?.cancel();
    const after = await post(`${base}/mcp`, rpc(4, "tools/list"), headers);
    expect(after.status).toBe(404);
    await after.body?.cancel();
  });

  test("PUT and PATCH: 405 with Allow; GET without a session: 400; malformed JSON: 400", async () => {
    for (const method of ["PUT", "PATCH"]) {
      const response = await fetch(`${base}/mcp`, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("GET, POST, DELETE, OPTIONS");
      await response.body?.cancel();
    }
    const stream = await fetch(`${base}/mcp`, { headers: { accept: "text/event-stream" } });
    expect(stream.status).toBe(400);
    await stream.body?.cancel();
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
  app.mcp.configure({ authRequired: true, stateless: true });
  // ctx.identity is what the app's AuthenticationHandler made of this request's token.
  app.mcp.tool(function whoami(_args, ctx) {
    return `you are ${String(ctx.identity?.claims.sub)}`;
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
    expect((await response.json()).result.content[0].text).toBe("you are u1");
  });
});
