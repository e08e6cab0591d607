/**
 * Who is calling the MCP endpoint. When the app configured authentication,
 * every request to `/mcp` is authenticated (so `ctx.identity` is set whenever
 * a valid token is sent, as on any route); with `authRequired` a request
 * without a valid identity is refused here with 401 before any MCP work.
 * This is the one place that produces 401/403 for `/mcp` (issue #16 builds
 * the OAuth resource-metadata challenge on it).
 */

import type { AuthenticationHandler } from "../auth/handler.ts";
import type { Request } from "../http/request.ts";

export interface McpAuthSettings {
  /** Refuse requests without a valid identity (401). */
  required: boolean;
}

function unauthorized(headers: Record<string, string>): globalThis.Response {
  return Response.json(
    { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Unauthorized" } },
    { status: 401, headers: { "www-authenticate": "Bearer", ...headers } },
  );
}

/**
 * Sets `request.identity` from the app's handler; answers 401 when
 * authentication is required and failed. A handler that throws refuses (it
 * does not crash the endpoint); `authRequired` without a handler refuses all.
 */
export async function authenticateMcp(
  request: Request,
  handler: AuthenticationHandler | null,
  settings: McpAuthSettings,
  cors: Record<string, string>,
): Promise<globalThis.Response | null> {
  if (handler !== null && request.identity === null) {
    try {
      request.identity = await handler.authenticate(request);
    } catch {
      request.identity = null;
    }
  }
  if (settings.required && request.identity === null) return unauthorized(cors);
  return null;
}
