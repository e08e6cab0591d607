/**
 * Who is calling the MCP endpoint, and may they: the one place that makes
 * 401/403 for `/mcp`. When the app configured authentication, every request
 * is authenticated whenever it carries a credential (so `ctx.identity` is set
 * as on any route). The rules themselves (the endpoint's `authRequired` and
 * `auth.scopes`, each tool's `authRequired`/`scopes`, the RFC 9728
 * challenges) live in src/mcp/auth/gate.ts.
 */

import type { Request } from "../http/request.ts";
import { checkEndpoint, checkTools, type GateConfig } from "./auth/gate.ts";

function withHeaders(response: globalThis.Response, headers: Record<string, string>): globalThis.Response {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

/** Sets `request.identity`; answers 401/403 when the endpoint's own rule is not met. */
export async function authenticateMcp(
  request: Request,
  gate: GateConfig,
  cors: Record<string, string>,
): Promise<globalThis.Response | null> {
  const refused = await checkEndpoint(request, gate);
  return refused === null ? null : withHeaders(refused, cors);
}

/** 401/403 for a `tools/call` of a tool whose own rule the caller does not meet (the parsed POST body). */
export async function authorizeCalls(
  request: Request,
  body: unknown,
  gate: GateConfig,
  cors: Record<string, string>,
): Promise<globalThis.Response | null> {
  const refused = await checkTools(request, body, gate);
  return refused === null ? null : withHeaders(refused, cors);
}
