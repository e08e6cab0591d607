/**
 * Combination rows of the MCP hardening (issue 31): an MCP session used by
 * another identity behind every layer and in every run mode (with
 * `--processes 2` and two machines the foreign request may be relayed to the
 * session's owner, which refuses it there).
 */
import { expect } from "bun:test";
import { initializeMessage } from "../mcp/helpers/raw-session.ts";
import type { Exchange, Feature } from "./table.ts";
import { httpExchange, OTHER_TOKEN } from "./table.ts";

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

export const MCP_HARDENING_ROWS: Feature[] = [
  {
    // ada opens a session; grace's call and DELETE on it are 404 (the session is bound to ada), and
    // ada's own call then still works: the exchange returns ada's call, grace's statuses as headers.
    name: "mcp-session-owner",
    register(app) {
      app.mcp.tool((_args, ctx) => `owner ${String(ctx.identity?.claims.user ?? "anonymous")}`, {
        name: "combo_whoami",
        description: "Who calls",
      });
    },
    async exchange(base, init): Promise<Exchange> {
      const opened = await httpExchange(base, "/mcp", init, {
        method: "POST",
        headers: HEADERS,
        body: JSON.stringify(initializeMessage({ client: "combo" })),
      });
      const session = opened.headers.get("mcp-session-id");
      if (opened.status !== 200 || session === null) return opened;
      const onSession = { ...HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
      const call = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "combo_whoami" },
      });
      const foreign = { ...init, headers: { ...init.headers, authorization: `Bearer ${OTHER_TOKEN}` } };
      const foreignCall = await httpExchange(base, "/mcp", foreign, {
        method: "POST",
        headers: onSession,
        body: call,
      });
      const foreignDelete = await httpExchange(base, "/mcp", foreign, {
        method: "DELETE",
        headers: onSession,
      });
      const own = await httpExchange(base, "/mcp", init, { method: "POST", headers: onSession, body: call });
      own.headers.set("x-foreign-call", String(foreignCall.status));
      own.headers.set("x-foreign-delete", String(foreignDelete.status));
      return own;
    },
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.body).toContain('"text":"owner ada"');
      expect(result.headers.get("x-foreign-call")).toBe("404");
      expect(result.headers.get("x-foreign-delete")).toBe("404");
    },
    skip: {
      "exception-handler": "a tool's error is a JSON-RPC result (isError), not an HTTP error",
      "request-timeout": "the MCP endpoint is the framework's route, without a route time limit",
      "problem-details": "the MCP endpoint answers its errors in JSON-RPC (docs/mcp.md), not problem details",
    },
  },
];
