/**
 * Who is calling the MCP endpoint, and may they: the one place that makes
 * 401/403 for `/mcp`. When the app configured authentication, every request
 * is authenticated whenever it carries a credential (so `ctx.identity` is set
 * as on any route). The rules themselves (the endpoint's `authRequired` and
 * `auth.scopes`, each tool's `authRequired`/`scopes`, the RFC 9728
 * challenges) live in src/mcp/auth/gate.ts.
 */

import type { Request } from "../http/request.ts";
import { HttpError } from "../response/errors.ts";
import { checkEndpoint, checkTools, type GateConfig } from "./auth/gate.ts";

/** An `HttpError` an authentication handler threw (JwtAuth's 503) as a JSON-RPC error with its status. */
function handlerAnswer(error: unknown, cors: Record<string, string>): globalThis.Response {
  if (!(error instanceof HttpError)) throw error;
  return globalThis.Response.json(
    { jsonrpc: "2.0", id: null, error: { code: -32603, message: error.message } },
    { status: error.status, headers: { ...error.headers, ...cors } },
  );
}

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
  let refused: globalThis.Response | null;
  try {
    refused = await checkEndpoint(request, gate);
  } catch (error) {
    return handlerAnswer(error, cors);
  }
  return refused === null ? null : withHeaders(refused, cors);
}

/** 401/403 for a `tools/call` of a tool whose own rule the caller does not meet (the parsed POST body). */
export async function authorizeCalls(
  request: Request,
  body: unknown,
  gate: GateConfig,
  cors: Record<string, string>,
): Promise<globalThis.Response | null> {
  let refused: globalThis.Response | null;
  try {
    refused = await checkTools(request, body, gate);
  } catch (error) {
    return handlerAnswer(error, cors);
  }
  return refused === null ? null : withHeaders(refused, cors);
}
