/**
 * A route's rate limit when the route is called as an MCP tool (issue 31): the
 * call is counted under the MCP caller's own key (the address of its `/mcp`
 * request, or its identity), never under one key shared by every MCP caller,
 * and under the same counter as the caller's HTTP requests to that route. Real
 * clients on loopback: sockets bound to 127.0.0.2, 127.0.0.3, … reach the
 * server on 127.0.0.1 with addresses of their own.
 */
import { describe, expect, test } from "bun:test";
import { AuthenticationHandler, Identity, type Request, Webfw } from "../../../src/index.ts";
import { requestFrom } from "../../helpers/from-address.ts";

class TokenAuth extends AuthenticationHandler {
  authenticate(request: Request): Identity | null {
    const token = this.tokenGetter.getToken(request);
    return token === "alice" || token === "bob" ? new Identity({ claims: { sub: token } }) : null;
  }
}

async function serve(key: "ip" | "identity" = "ip") {
  const app = new Webfw(import.meta.path);
  if (key === "identity") app.configureAuthentication(new TokenAuth());
  app.get("/items", (request) => ({ items: [1, 2], seenAs: request.ipAddr }), {
    mcp: { name: "list_items" },
    rateLimit: { limit: 3, windowMs: 60_000, key },
  });
  const handle = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false });
  return { base: `http://127.0.0.1:${handle.port}`, stop: () => handle.stop() };
}

interface ToolAnswer {
  isError: boolean;
  text: string;
  structured?: { items: number[]; seenAs: string | null };
}

/** One `tools/call` of `list_items` from `from` (a one-shot POST, no session). */
async function callTool(
  from: string,
  base: string,
  headers: Record<string, string> = {},
): Promise<ToolAnswer> {
  const answer = await requestFrom(from, `${base}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_items" } }),
  });
  expect(answer.status).toBe(200);
  const { result } = JSON.parse(answer.body);
  return {
    isError: result.isError,
    text: result.content[0]?.text ?? "",
    structured: result.structuredContent,
  };
}

describe("route tools and rate limits", () => {
  test("each MCP caller has its own count: one caller's exhausted limit leaves another's intact", async () => {
    const server = await serve();
    try {
      const first = await callTool("127.0.0.2", server.base);
      expect(first.isError).toBe(false);
      // The route sees the MCP caller's address as its client's.
      expect(first.structured?.seenAs).toBe("127.0.0.2");
      for (let i = 0; i < 2; i++) expect((await callTool("127.0.0.2", server.base)).isError).toBe(false);
      const refused = await callTool("127.0.0.2", server.base);
      expect(refused.isError).toBe(true);
      expect(refused.text).toStartWith("429 Too Many Requests");
      const other = await callTool("127.0.0.3", server.base);
      expect(other.isError).toBe(false);
      expect(other.structured?.seenAs).toBe("127.0.0.3");
    } finally {
      await server.stop();
    }
  });

  test("one limit per client: HTTP requests and tool calls of the route share one count", async () => {
    const server = await serve();
    try {
      for (let i = 0; i < 2; i++) {
        const http = await requestFrom("127.0.0.4", `${server.base}/items`);
        expect(http.status).toBe(200);
      }
      expect((await callTool("127.0.0.4", server.base)).isError).toBe(false);
      expect((await callTool("127.0.0.4", server.base)).text).toStartWith("429 Too Many Requests");
      const http = await requestFrom("127.0.0.4", `${server.base}/items`);
      expect(http.status).toBe(429);
      expect(http.headers.get("ratelimit-policy")).toBe('"GET /items";q=3;w=60');
    } finally {
      await server.stop();
    }
  });

  test('key "identity": calls are counted per identity, over HTTP and MCP alike', async () => {
    const server = await serve("identity");
    try {
      const alice = { authorization: "Bearer alice" };
      expect((await requestFrom("127.0.0.5", `${server.base}/items`, { headers: alice })).status).toBe(200);
      // Another address, the same identity: the same count.
      for (let i = 0; i < 2; i++)
        expect((await callTool("127.0.0.6", server.base, alice)).isError).toBe(false);
      expect((await callTool("127.0.0.5", server.base, alice)).text).toStartWith("429 Too Many Requests");
      expect((await callTool("127.0.0.5", server.base, { authorization: "Bearer bob" })).isError).toBe(false);
      // An anonymous caller is counted by its address, not under a key every anonymous caller shares.
      for (let i = 0; i < 3; i++) expect((await callTool("127.0.0.7", server.base)).isError).toBe(false);
      expect((await callTool("127.0.0.7", server.base)).isError).toBe(true);
      expect((await callTool("127.0.0.8", server.base)).isError).toBe(false);
    } finally {
      await server.stop();
    }
  });
});
