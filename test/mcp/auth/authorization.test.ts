/**
 * MCP authorization end to end over real sockets: the RFC 9728 metadata
 * document, the 401/403 challenges, JWT validation with an audience bound to
 * the resource, and the official SDK client discovering all of it by itself
 * (client-credentials grant against a real little authorization server).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { JwtAuth, type ServerHandle, t, Webfw } from "../../../src/index.ts";
import { type AuthorizationServer, freePort, startAuthorizationServer } from "./authorization-server.ts";

let as: AuthorizationServer;
let server: ServerHandle;
let resource: string;
let metadataUrl: string;

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

function post(body: unknown, token?: string): Promise<globalThis.Response> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return fetch(`${server.url}/mcp`, { method: "POST", headers, body: JSON.stringify(body) });
}

beforeAll(async () => {
  as = await startAuthorizationServer({
    agent: { secret: "s3cret", scopes: ["mcp", "notes:read", "notes:write"] },
    reader: { secret: "r3ad", scopes: ["notes:read"] },
  });
  const port = freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
  const app = new Webfw(import.meta.path);
  app.configureAuthentication(
    new JwtAuth({
      jwks: as.jwksUri,
      issuer: as.issuer,
      audience: resource,
      algorithms: ["ES256"],
      typ: "at+jwt",
    }),
  );
  app.mcp.configure({
    auth: {
      resource,
      authorizationServers: [as.issuer],
      scopes: ["mcp"],
      scopesSupported: ["notes:read"],
      resourceName: "Notes API",
      resourceDocumentation: "https://docs.example.com/notes",
    },
  });
  app.mcp.tool(({ text }) => `echo: ${text}`, { name: "echo", args: { text: t.str() } });
  app.post("/notes", ({ parsedBody }) => parsedBody, {
    body: t.object({ title: t.str() }),
    mcp: { scopes: ["notes:write"] },
  });
  app.get("/notes/:id", ({ pathParams }) => ({ id: pathParams.id }), { mcp: { authRequired: true } });
  server = await app.start({ port, host: "127.0.0.1" });
});

afterAll(async () => {
  await server?.stop(true);
  await as?.stop();
});

describe("protected-resource metadata (RFC 9728)", () => {
  test("served at the path-suffixed and the bare well-known path, field by field", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      const document = (await response.json()) as Record<string, unknown>;
      expect(Object.keys(document).sort()).toEqual([
        "authorization_servers",
        "bearer_methods_supported",
        "resource",
        "resource_documentation",
        "resource_name",
        "scopes_supported",
      ]);
      expect(document.resource).toBe(resource);
      expect(document.authorization_servers).toEqual([as.issuer]);
      // The endpoint's scope, the advertised extra, and every tool's own scopes.
      expect(document.scopes_supported).toEqual(["mcp", "notes:read", "notes:write"]);
      expect(document.bearer_methods_supported).toEqual(["header"]);
      expect(document.resource_name).toBe("Notes API");
      expect(document.resource_documentation).toBe("https://docs.example.com/notes");
    }
  });

  test("the metadata needs no token and refuses other methods", async () => {
    expect(
      (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`, { method: "POST" })).status,
    ).toBe(405);
    expect((await fetch(`${server.url}/.well-known/oauth-protected-resource/other`)).status).toBe(404);
  });

  test("the SDK's own discovery reaches it (path-suffixed first)", async () => {
    const found = await discoverOAuthProtectedResourceMetadata(resource);
    expect(found.resource).toBe(resource);
    expect(found.authorization_servers).toEqual([as.issuer]);
  });
});

describe("challenges", () => {
  test("no token: 401 naming the metadata and the endpoint's scope", async () => {
    const response = await post(INITIALIZE);
    expect(response.status).toBe(401);
    const header = response.headers.get("www-authenticate");
    expect(header).toBe(`Bearer scope="mcp", resource_metadata="${metadataUrl}"`);
    const params = extractWWWAuthenticateParams(response);
    expect(params.resourceMetadataUrl?.href).toBe(metadataUrl);
    expect(params.scope).toBe("mcp");
    expect(params.error).toBeUndefined();
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32001, message: "Unauthorized" },
    });
    // Every method of the endpoint, not only POST.
    expect((await fetch(`${server.url}/mcp`)).status).toBe(401);
  });

  test("a token the app refuses (bad signature, other audience, expired, garbage): 401 invalid_token", async () => {
    const otherAudience = await as.sign({ sub: "x", scope: "mcp" }, { audience: "http://127.0.0.1:1/mcp" });
    const expired = await as.sign(
      { sub: "x", scope: "mcp" },
      { audience: resource, expiresAt: Math.floor(Date.now() / 1000) - 60 },
    );
    const noAudience = await as.sign({ sub: "x", scope: "mcp" });
    for (const token of [otherAudience, noAudience, "not-a-jwt", `${otherAudience.slice(0, -4)}AAAA`]) {
      const response = await post(INITIALIZE, token);
      expect(response.status).toBe(401);
      expect(extractWWWAuthenticateParams(response).error).toBe("invalid_token");
    }
    expect((await post(INITIALIZE, expired)).status).toBe(401);
  });

  test("a valid token without the endpoint's scope: 403 insufficient_scope naming it", async () => {
    const token = await as.sign({ sub: "x", scope: "notes:read" }, { audience: resource });
    const response = await post(INITIALIZE, token);
    expect(response.status).toBe(403);
    const params = extractWWWAuthenticateParams(response);
    expect(params.error).toBe("insufficient_scope");
    expect(params.scope).toBe("mcp");
    expect(params.resourceMetadataUrl?.href).toBe(metadataUrl);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      "insufficient_scope: the token lacks mcp",
    );
  });

  test("scopes as an array claim count too; the right token is let in", async () => {
    const asArray = await as.sign({ sub: "x", scopes: ["mcp"] }, { audience: resource });
    expect((await post(INITIALIZE, asArray)).status).toBe(200);
    const asString = await as.sign({ sub: "x", scope: "other mcp" }, { audience: resource });
    const response = await post(INITIALIZE, asString);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: { serverInfo: unknown } }).result.serverInfo).toBeDefined();
  });

  test("a tool with its own scope: 403 naming the endpoint's and the tool's scopes, before anything runs", async () => {
    const token = await as.sign({ sub: "x", scope: "mcp" }, { audience: resource });
    const call = {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "post_notes", arguments: { title: "t" } },
    };
    const response = await post(call, token);
    expect(response.status).toBe(403);
    const params = extractWWWAuthenticateParams(response);
    expect(params.error).toBe("insufficient_scope");
    expect(params.scope).toBe("mcp notes:write");
    // In a batch too.
    expect((await post([{ jsonrpc: "2.0", id: 3, method: "ping" }, call], token)).status).toBe(403);
    // Other messages with the same token are fine.
    expect((await post(INITIALIZE, token)).status).toBe(200);
  });
});

describe("the official SDK client runs the whole flow by itself", () => {
  test("401 → metadata → authorization server → token for the resource → connected", async () => {
    const before = as.issued.length;
    // A machine client asks for the scope it is configured with (the SDK's client-credentials rule).
    const provider = new ClientCredentialsProvider({
      clientId: "agent",
      clientSecret: "s3cret",
      expectedIssuer: as.issuer,
      scope: "mcp",
    });
    const client = new Client({ name: "auth-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("echo");
    expect(await client.callTool({ name: "echo", arguments: { text: "hi" } })).toMatchObject({
      content: [{ type: "text", text: "echo: hi" }],
    });
    // The token was asked for this resource (RFC 8707), found through the metadata.
    expect(as.issued.slice(before)).toEqual([{ clientId: "agent", resource, scope: "mcp" }]);
    await client.close();
  });

  test("a client the authorization server will not give the scope cannot connect", async () => {
    const provider = new ClientCredentialsProvider({
      clientId: "reader",
      clientSecret: "r3ad",
      expectedIssuer: as.issuer,
      scope: "notes:read",
    });
    const client = new Client({ name: "auth-test", version: "1.0.0" });
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider })),
    ).rejects.toThrow();
  });
});

test("an interactive client is sent to the authorization server with the challenge's scope and the resource", async () => {
  let sentTo: URL | null = null;
  const provider: OAuthClientProvider = {
    redirectUrl: "http://127.0.0.1/callback",
    clientMetadata: { redirect_uris: ["http://127.0.0.1/callback"], client_name: "interactive" },
    clientInformation: () => ({ client_id: "interactive" }),
    tokens: () => undefined,
    saveTokens: () => undefined,
    redirectToAuthorization: (url) => {
      sentTo = url;
    },
    saveCodeVerifier: () => undefined,
    codeVerifier: () => "verifier",
  };
  const client = new Client({ name: "auth-test", version: "1.0.0" });
  await expect(
    client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider })),
  ).rejects.toThrow();
  const url = sentTo as URL | null;
  expect(url?.origin).toBe(as.issuer);
  expect(url?.pathname).toBe("/authorize");
  expect(url?.searchParams.get("scope")).toBe("mcp");
  expect(url?.searchParams.get("resource")).toBe(resource);
  expect(url?.searchParams.get("code_challenge_method")).toBe("S256");
});
