/**
 * Streamable HTTP spoken by hand (docs/mcp.md, "Sessions"): a JSON-RPC POST that accepts JSON
 * or SSE, `initialize` + `notifications/initialized` opening a session, and a `tools/call` in it.
 * For the suites that check statuses and headers an SDK client would hide.
 */
import { expect } from "bun:test";

export const PROTOCOL_VERSION = "2025-11-25";

/** Headers a request carries: the session's (`mcp-session-id`, `mcp-protocol-version`) and any other. */
export type McpHeaders = Record<string, string>;

/** POSTs `body` (a JSON-RPC message, as given) to the MCP endpoint at `url`. */
export function mcpPost(
  url: string,
  body: unknown,
  headers: McpHeaders = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
    signal,
  });
}

/** An `initialize` request (by default: id 0, a client named "raw" with no capabilities, this protocol version). */
export function initializeMessage(
  options: {
    id?: number;
    client?: string;
    capabilities?: Record<string, unknown>;
    protocolVersion?: string;
  } = {},
): Record<string, unknown> {
  const { id = 0, client = "raw", capabilities = {}, protocolVersion = PROTOCOL_VERSION } = options;
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion, capabilities, clientInfo: { name: client, version: "1" } },
  };
}

/**
 * `initialize` then `notifications/initialized`, both sent with `headers` (a token, say), each
 * checked (200 with a session id, then 202): the headers of the session opened.
 */
export async function openSession(url: string, headers: McpHeaders = {}): Promise<McpHeaders> {
  const init = await mcpPost(url, initializeMessage(), headers);
  expect(init.status).toBe(200);
  await init.body?.cancel();
  const session = init.headers.get("mcp-session-id");
  expect(session).not.toBeNull();
  const opened = { "mcp-session-id": session ?? "", "mcp-protocol-version": PROTOCOL_VERSION };
  const ready = await mcpPost(
    url,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { ...headers, ...opened },
  );
  expect(ready.status).toBe(202);
  return opened;
}

/** `tools/call` of `name` with `args`, request `id` and `_meta` (a progress token makes the answer SSE). */
export function callTool(
  url: string,
  headers: McpHeaders,
  name: string,
  args: Record<string, unknown> = {},
  { id = 1, meta }: { id?: number; meta?: Record<string, unknown> } = {},
): Promise<Response> {
  const params = meta === undefined ? { name, arguments: args } : { name, arguments: args, _meta: meta };
  return mcpPost(url, { jsonrpc: "2.0", id, method: "tools/call", params }, headers);
}
