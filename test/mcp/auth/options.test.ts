/** `configure({ auth })` is checked when called; the challenge and scope helpers on their own. */
import { describe, expect, test } from "bun:test";
import { AuthenticationHandler, Identity, type Request, SubRouter, Webfw } from "../../../src/index.ts";
import { bearerChallenge } from "../../../src/mcp/auth/challenge.ts";
import { calledTools } from "../../../src/mcp/auth/gate.ts";
import { resolveMcpAuth } from "../../../src/mcp/auth/options.ts";
import { grantedScopes, missingScopes } from "../../../src/mcp/auth/scopes.ts";

class AnyAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    // The token is the scope list (tests only): "mcp admin" grants both.
    const token = this.tokenGetter.getToken(request);
    return token ? new Identity({ claims: { scope: token.replaceAll("+", " ") } }) : null;
  }
}

const AS = ["https://auth.example.com"];

describe("configure({ auth }) refuses what would mislead a client", () => {
  test.each([
    [{ resource: "mcp", authorizationServers: AS }, "is not an absolute URL"],
    [{ resource: "http://api.example.com/mcp", authorizationServers: AS }, "must use https"],
    [{ resource: "https://api.example.com/mcp#x", authorizationServers: AS }, "must not have a fragment"],
    [{ resource: "https://api.example.com/mcp", authorizationServers: [] }, "at least one issuer"],
    [{ resource: "https://api.example.com/mcp", authorizationServers: ["ftp://x"] }, "must use https"],
    [
      { resource: "https://api.example.com/mcp", authorizationServers: ["https://as.example.com?x=1"] },
      "must not have a query",
    ],
    [
      { resource: "https://api.example.com/mcp", authorizationServers: AS, scopes: ["a b"] },
      "not a valid OAuth scope",
    ],
    [
      { resource: "https://api.example.com/mcp", authorizationServers: AS, scopes: ['q"'] },
      "not a valid OAuth scope",
    ],
    [
      { resource: "https://api.example.com/mcp", authorizationServers: AS, scopes: "mcp" },
      "must be an array",
    ],
  ])("%j", (options, message) => {
    const app = new Webfw(import.meta.path);
    expect(() => app.mcp.configure({ auth: options as never })).toThrow(message);
  });

  test("http is fine on loopback (local development), with or without a path", () => {
    expect(
      resolveMcpAuth({
        resource: "http://localhost:8080/mcp",
        authorizationServers: ["http://127.0.0.1:9000"],
      }).metadataUrl,
    ).toBe("http://localhost:8080/.well-known/oauth-protected-resource/mcp");
    const root = resolveMcpAuth({ resource: "https://mcp.example.com", authorizationServers: AS });
    expect(root.metadataPath).toBe("/.well-known/oauth-protected-resource");
    expect(root.metadataUrl).toBe("https://mcp.example.com/.well-known/oauth-protected-resource");
    const deep = resolveMcpAuth({ resource: "https://api.example.com/v1/mcp/", authorizationServers: AS });
    expect(deep.metadataUrl).toBe("https://api.example.com/.well-known/oauth-protected-resource/v1/mcp");
  });

  test("auth without an AuthenticationHandler stops the start", async () => {
    const app = new Webfw(import.meta.path);
    app.mcp.configure({ auth: { resource: "https://api.example.com/mcp", authorizationServers: AS } });
    await expect(app.build()).rejects.toThrow("needs app.configureAuthentication");
  });

  test("the app's own GET route on the well-known path wins; the other path is still served", async () => {
    const app = new Webfw(import.meta.path);
    app.configureAuthentication(new AnyAuth());
    app.get("/.well-known/oauth-protected-resource", () => ({ mine: true }));
    app.mcp.configure({ auth: { resource: "https://api.example.com/mcp", authorizationServers: AS } });
    expect(await (await app.request("/.well-known/oauth-protected-resource")).json()).toEqual({ mine: true });
    const served = await (await app.request("/.well-known/oauth-protected-resource/mcp")).json();
    expect(served).toEqual({
      resource: "https://api.example.com/mcp",
      authorization_servers: AS,
      bearer_methods_supported: ["header"],
    });
  });

  test("auth makes the endpoint require a token unless authRequired: false says otherwise", async () => {
    const strict = new Webfw(import.meta.path);
    strict.configureAuthentication(new AnyAuth());
    strict.mcp.configure({ auth: { resource: "https://api.example.com/mcp", authorizationServers: AS } });
    const init = {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    };
    expect((await strict.request("/mcp", init)).status).toBe(401);
    const open = new Webfw(import.meta.path);
    open.configureAuthentication(new AnyAuth());
    open.mcp.configure({
      auth: { resource: "https://api.example.com/mcp", authorizationServers: AS },
      authRequired: false,
    });
    expect((await open.request("/mcp", init)).status).toBe(200);
  });

  test("an open endpoint still sends the caller of a protected tool through the flow", async () => {
    const app = new Webfw(import.meta.path);
    app.configureAuthentication(new AnyAuth());
    app.get("/public", () => "hi", { mcp: true });
    app.get("/private", () => "secret", { mcp: { authRequired: true } });
    app.get("/scoped", () => "scoped", { mcp: { scopes: ["admin"] } });
    app.mcp.configure({
      auth: { resource: "https://api.example.com/mcp", authorizationServers: AS, scopes: ["mcp"] },
      authRequired: false,
    });
    const call = (name: string, token?: string) =>
      app.request("/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name, arguments: {} },
        }),
      });
    const metadata = "https://api.example.com/.well-known/oauth-protected-resource/mcp";
    const privateCall = await call("get_private");
    expect(privateCall.status).toBe(401);
    expect(privateCall.headers.get("www-authenticate")).toBe(
      `Bearer scope="mcp", resource_metadata="${metadata}"`,
    );
    const scopedCall = await call("get_scoped");
    expect(scopedCall.status).toBe(401);
    expect(scopedCall.headers.get("www-authenticate")).toBe(
      `Bearer scope="mcp admin", resource_metadata="${metadata}"`,
    );
    // The endpoint's own scopes are checked first (before the body is read), then the tool's.
    const noScope = await call("get_scoped", "none");
    expect(noScope.status).toBe(403);
    expect(noScope.headers.get("www-authenticate")).toContain('error="insufficient_scope", scope="mcp"');
    const endpointOnly = await call("get_scoped", "mcp");
    expect(endpointOnly.status).toBe(403);
    expect(endpointOnly.headers.get("www-authenticate")).toContain(
      'error="insufficient_scope", scope="mcp admin"',
    );
    expect([401, 403]).not.toContain((await call("get_scoped", "mcp+admin")).status);
    // The public tool is not held at the door (what the engine then answers is its business).
    expect([401, 403]).not.toContain((await call("get_public")).status);
  });
});

test("a tool behind a SubRouter with its own authentication is checked with that handler", async () => {
  class OnlyAdmin extends AuthenticationHandler {
    authenticate(request: Request): Identity | null {
      return this.tokenGetter.getToken(request) === "admin-token"
        ? new Identity({ claims: { scope: "ops" } })
        : null;
    }
  }
  const app = new Webfw(import.meta.path);
  app.configureAuthentication(new AnyAuth());
  const admin = new SubRouter(import.meta.path, { prefix: "/admin" });
  admin.configureAuthentication(new OnlyAdmin());
  admin.get("/stats", () => ({ ok: true }), { authRequired: true, mcp: { scopes: ["ops"] } });
  app.includeRouter(admin);
  const call = (token: string) =>
    app.request("/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "get_admin_stats", arguments: {} },
      }),
    });
  // The app's handler accepts "ops" (it grants the token as its scope), the SubRouter's does not: 401.
  expect((await call("ops")).status).toBe(401);
  expect([401, 403]).not.toContain((await call("admin-token")).status);
});

describe("helpers", () => {
  test("challenges quote and escape their values", () => {
    expect(
      bearerChallenge({
        resourceMetadata: "https://x/.well-known/oauth-protected-resource",
        error: "insufficient_scope",
        scopes: ["a", "b"],
        description: 'needs "a"\r\n',
      }),
    ).toBe(
      'Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource", error_description="needs \\"a\\""',
    );
  });

  test("scopes from a space-separated claim, a scopes array or scp; junk ignored", () => {
    const identity = new Identity({ claims: { scope: "a  b", scopes: ["c", 1, ""], scp: "d" } });
    expect([...grantedScopes(identity)].sort()).toEqual(["a", "b", "c", "d"]);
    expect(missingScopes(["a", "e", "c", "f"], identity)).toEqual(["e", "f"]);
    expect(missingScopes(["a"], null)).toEqual(["a"]);
    expect(missingScopes([], null)).toEqual([]);
    expect([...grantedScopes(new Identity({ claims: { scope: 42 } }))]).toEqual([]);
  });

  test("calledTools reads single messages and batches, and ignores anything malformed", () => {
    const bytes = (value: unknown) =>
      typeof value === "string"
        ? (() => {
            try {
              return JSON.parse(value);
            } catch {
              return undefined;
            }
          })()
        : value;
    expect(calledTools(bytes({ method: "tools/call", params: { name: "a" } }))).toEqual(["a"]);
    expect(
      calledTools(
        bytes([
          { method: "tools/call", params: { name: "a" } },
          { method: "ping" },
          { method: "tools/call", params: { name: "b" } },
        ]),
      ),
    ).toEqual(["a", "b"]);
    for (const junk of [
      "{",
      "",
      "null",
      "[1,2]",
      '{"method":"tools/call"}',
      '{"method":"tools/call","params":{"name":3}}',
    ])
      expect(calledTools(bytes(junk))).toEqual([]);
  });
});
