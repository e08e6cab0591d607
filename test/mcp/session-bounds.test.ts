/**
 * Session bounds against an `initialize` flood (issue 39): sessions are counted
 * per client, a client's own oldest never-used session makes room for its new
 * one, the process cap evicts the oldest never-used session of anyone before
 * refusing, and never-used sessions expire fast. Two real clients on loopback:
 * the flood comes from 127.0.0.2 (a socket bound to that address), the victim
 * from 127.0.0.1, to a server on 127.0.0.1.
 */
import { describe, expect, test } from "bun:test";
import { Webfw } from "../../src/index.ts";
import type { McpConfig } from "../../src/mcp/index.ts";
import { requestFrom } from "../helpers/from-address.ts";

const VERSION = "2025-11-25";
const FLOODER = "127.0.0.2";
const VICTIM = "127.0.0.1";

async function serve(config: McpConfig) {
  const app = new Webfw(import.meta.path);
  app.mcp.configure(config);
  app.mcp.tool(() => "pong", { name: "ping_tool" });
  const handle = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false });
  return { url: `http://127.0.0.1:${handle.port}/mcp`, stop: () => handle.stop() };
}

function rpc(from: string, url: string, body: unknown, session?: string) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  if (session !== undefined) {
    headers["mcp-session-id"] = session;
    headers["mcp-protocol-version"] = VERSION;
  }
  return requestFrom(from, url, { method: "POST", headers, body: JSON.stringify(body) });
}

/** `initialize` from `from`: the answer's status and session id. */
async function initialize(from: string, url: string) {
  const answer = await rpc(from, url, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "flood", version: "1" } },
  });
  return { status: answer.status, session: answer.headers.get("mcp-session-id"), answer };
}

/** A request on the session (which marks it used); the HTTP status. */
async function use(from: string, url: string, session: string): Promise<number> {
  const answer = await rpc(from, url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, session);
  return answer.status;
}

describe("MCP session bounds", () => {
  test("a flood that reaches the process cap evicts the oldest unused sessions: another client still gets one", async () => {
    const server = await serve({ maxSessions: 30 });
    try {
      const flood: string[] = [];
      for (let i = 0; i < 90; i++) {
        const { status, session } = await initialize(FLOODER, server.url);
        expect(status).toBe(200);
        flood.push(session as string);
      }
      const victim = await initialize(VICTIM, server.url);
      expect(victim.status).toBe(200);
      expect(await use(VICTIM, server.url, victim.session as string)).toBe(200);
      // The oldest unused sessions made room: gone (404), the newest are still there.
      expect(await use(FLOODER, server.url, flood[0] as string)).toBe(404);
      expect(await use(FLOODER, server.url, flood[89] as string)).toBe(200);
    } finally {
      await server.stop();
    }
  }, 60_000);

  test("a client holds at most maxSessionsPerClient: its own oldest unused session makes room", async () => {
    const server = await serve({ maxSessionsPerClient: 5 });
    try {
      const flood: string[] = [];
      for (let i = 0; i < 12; i++) {
        const { status, session } = await initialize(FLOODER, server.url);
        expect(status).toBe(200);
        flood.push(session as string);
      }
      const alive = [];
      for (const session of flood) alive.push(await use(FLOODER, server.url, session));
      expect(alive).toEqual([404, 404, 404, 404, 404, 404, 404, 200, 200, 200, 200, 200]);
      expect((await initialize(VICTIM, server.url)).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 30_000);

  test("sessions in use are never evicted: the client over its share gets 429, the others are served", async () => {
    const server = await serve({ maxSessionsPerClient: 3 });
    try {
      const used: string[] = [];
      for (let i = 0; i < 3; i++) {
        const { session } = await initialize(FLOODER, server.url);
        expect(await use(FLOODER, server.url, session as string)).toBe(200);
        used.push(session as string);
      }
      const refused = await initialize(FLOODER, server.url);
      expect(refused.status).toBe(429);
      expect(refused.answer.headers.get("retry-after")).toBe("5");
      expect(refused.session).toBeNull();
      expect(JSON.parse(refused.answer.body).error.message).toContain(
        "too many MCP sessions for this client",
      );
      for (const session of used) expect(await use(FLOODER, server.url, session)).toBe(200);
      expect((await initialize(VICTIM, server.url)).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 30_000);

  test("when every session is in use, the process cap answers 503 with Retry-After", async () => {
    const server = await serve({ maxSessions: 2 });
    try {
      for (const from of [FLOODER, VICTIM]) {
        const { session } = await initialize(from, server.url);
        expect(await use(from, server.url, session as string)).toBe(200);
      }
      const refused = await initialize("127.0.0.3", server.url);
      expect(refused.status).toBe(503);
      expect(refused.answer.headers.get("retry-after")).toBe("5");
    } finally {
      await server.stop();
    }
  }, 30_000);

  test("a session never used after initialize expires after unusedSessionTimeoutMs; a used one stays", async () => {
    const server = await serve({ unusedSessionTimeoutMs: 1000, sessionIdleTimeoutMs: 60_000 });
    try {
      const unused = await initialize(VICTIM, server.url);
      // notifications/initialized is not a use: the SDK sends it even for a session it never uses.
      const initialized = await rpc(
        VICTIM,
        server.url,
        { jsonrpc: "2.0", method: "notifications/initialized" },
        unused.session as string,
      );
      expect(initialized.status).toBe(202);
      const used = await initialize(VICTIM, server.url);
      expect(await use(VICTIM, server.url, used.session as string)).toBe(200);
      await Bun.sleep(2600);
      expect(await use(VICTIM, server.url, unused.session as string)).toBe(404);
      expect(await use(VICTIM, server.url, used.session as string)).toBe(200);
    } finally {
      await server.stop();
    }
  }, 30_000);

  test("bad bounds are refused when configured", () => {
    const app = new Webfw(import.meta.path);
    expect(() => app.mcp.configure({ maxSessionsPerClient: 0 })).toThrow(
      "maxSessionsPerClient must be a positive integer",
    );
    expect(() => app.mcp.configure({ unusedSessionTimeoutMs: -1 })).toThrow(
      "unusedSessionTimeoutMs must be a non-negative integer",
    );
  });
});
