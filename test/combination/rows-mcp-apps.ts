/**
 * Combination row of MCP Apps (issue 38): a route tool with a template UI,
 * behind every layer and in every run mode. A host that negotiated the
 * extension lists the tool (its `_meta.ui.resourceUri`) and reads the `ui://`
 * resource, which answers under the route's own authentication (the auth
 * layer's wrong token gets the 401 challenge on the read).
 */
import { expect } from "bun:test";
import { initializeMessage } from "../mcp/helpers/raw-session.ts";
import type { Exchange, Feature } from "./table.ts";
import { featurePath, httpExchange } from "./table.ts";

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const UI_URI = "ui://tools/combo_app";

/** The JSON-RPC answer of a JSON or SSE body. */
function answerOf(body: string): { result?: Record<string, unknown> } {
  const json = body.startsWith("{") ? body : (body.match(/^data: (.*)$/m)?.[1] ?? "{}");
  return JSON.parse(json) as { result?: Record<string, unknown> };
}

export const MCP_APPS_ROWS: Feature[] = [
  {
    name: "mcp-app",
    register(app, ctx) {
      app.get(
        featurePath("mcp-app"),
        (request) => ctx.guard(request)?.then(() => ({ never: true })) ?? { total: 3 },
        {
          ...ctx.routeOptions,
          mcp: { name: "combo_app", ui: { template: "<p>Total: {{total}}</p>", prefersBorder: true } },
        },
      );
    },
    async exchange(base, init): Promise<Exchange> {
      const opened = await httpExchange(base, "/mcp", init, {
        method: "POST",
        headers: HEADERS,
        body: JSON.stringify(
          initializeMessage({
            client: "combo-host",
            capabilities: {
              extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
            },
          }),
        ),
      });
      const session = opened.headers.get("mcp-session-id");
      if (opened.status !== 200 || session === null) return opened;
      const onSession = { ...HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
      const listed = await httpExchange(base, "/mcp", init, {
        method: "POST",
        headers: onSession,
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      const tools = (answerOf(listed.body).result?.tools ?? []) as {
        name: string;
        _meta?: { ui?: { resourceUri?: string } };
      }[];
      const read = await httpExchange(base, "/mcp", init, {
        method: "POST",
        headers: onSession,
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: UI_URI } }),
      });
      read.headers.set(
        "x-listed-ui",
        tools.find((tool) => tool.name === "combo_app")?._meta?.ui?.resourceUri ?? "none",
      );
      return read;
    },
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.headers.get("x-listed-ui")).toBe(UI_URI);
      const contents = (answerOf(result.body).result?.contents ?? []) as {
        mimeType?: string;
        text?: string;
        _meta?: unknown;
      }[];
      expect(contents[0]?.mimeType).toBe("text/html;profile=mcp-app");
      expect(contents[0]?._meta).toEqual({ ui: { prefersBorder: true } });
      expect(contents[0]?.text).toContain('id="webfw-view"');
      expect(contents[0]?.text).toContain("Total: {{total}}");
    },
    skip: {
      "exception-handler":
        "the UI is a resource of the MCP endpoint; the route's errors are isError tool results",
      "request-timeout": "the MCP endpoint is the framework's route, without a route time limit",
      "problem-details": "the MCP endpoint answers its errors in JSON-RPC (docs/mcp.md), not problem details",
    },
  },
];
