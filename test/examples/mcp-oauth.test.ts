/**
 * examples/mcp-oauth.ts end to end: a real (small) authorization server issues
 * JWTs, the official SDK client finds it through the app's RFC 9728 metadata,
 * gets a token for the resource and calls the route tools; a token without the
 * write scope is refused with 403 insufficient_scope.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ServerHandle } from "../../src/index.ts";
import {
  type AuthorizationServer,
  freePort,
  startAuthorizationServer,
} from "../mcp/auth/authorization-server.ts";

let as: AuthorizationServer;
let server: ServerHandle;
let resource: string;

beforeAll(async () => {
  as = await startAuthorizationServer({
    writer: { secret: "w", scopes: ["mcp", "notes:write"] },
    reader: { secret: "r", scopes: ["mcp"] },
  });
  const port = freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  process.env.OAUTH_ISSUER = as.issuer;
  process.env.MCP_RESOURCE = resource;
  const { default: app } = await import("../../examples/mcp-oauth.ts");
  server = await app.start({ port, host: "127.0.0.1" });
});

afterAll(async () => {
  await server?.stop(true);
  await as?.stop();
  delete process.env.OAUTH_ISSUER;
  delete process.env.MCP_RESOURCE;
});

async function connect(clientId: string, secret: string, scope: string): Promise<Client> {
  const provider = new ClientCredentialsProvider({
    clientId,
    clientSecret: secret,
    expectedIssuer: as.issuer,
    scope,
  });
  const client = new Client({ name: "oauth-example", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider }));
  return client;
}

describe("examples/mcp-oauth.ts", () => {
  test("the metadata names the authorization server; a bare call gets the challenge", async () => {
    const document = await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(document).toEqual({
      resource,
      authorization_servers: [as.issuer],
      scopes_supported: ["mcp", "notes:write"],
      bearer_methods_supported: ["header"],
      resource_name: "Notes",
    });
    const bare = await fetch(`${server.url}/mcp`, { method: "POST" });
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toContain("resource_metadata=");
  });

  test("a client with the write scope discovers, authorizes and writes through the route", async () => {
    const client = await connect("writer", "w", "mcp notes:write");
    const added = await client.callTool({ name: "add_note", arguments: { text: "hello" } });
    expect(added.structuredContent).toEqual({ count: 1 });
    const listed = await client.callTool({ name: "get_notes", arguments: {} });
    expect(listed.structuredContent).toEqual({ notes: ["hello (by writer)"] });
    expect(as.issued.at(-1)).toEqual({ clientId: "writer", resource, scope: "mcp notes:write" });
    await client.close();
  });

  test("a client without it reads, and is refused the write with 403 insufficient_scope", async () => {
    const client = await connect("reader", "r", "mcp");
    expect((await client.callTool({ name: "get_notes", arguments: {} })).isError).toBeFalsy();
    await expect(client.callTool({ name: "add_note", arguments: { text: "no" } })).rejects.toMatchObject({
      code: 403,
    });
    await client.close();
  });
});
