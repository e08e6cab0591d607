/**
 * The Streamable HTTP transport, stateless flavour: one POST carries one
 * JSON-RPC message (or a batch) and gets one `application/json` answer. No
 * SSE stream and no sessions, so GET and DELETE are 405. Every malformed
 * input ends here as a 4xx with a JSON-RPC error body; nothing becomes a 5xx.
 */

import { runMethod, type ServerInfo, SUPPORTED_PROTOCOL_VERSIONS } from "./handlers.ts";
import {
  classify,
  failure,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  type Incoming,
  type JsonRpcResponse,
  PARSE_ERROR,
  RpcError,
  success,
  tooDeep,
  UNAUTHORIZED,
} from "./jsonrpc.ts";
import { normaliseOrigin, type OriginPolicy, originProblem } from "./origin-guard.ts";
import type { Registry } from "./registry.ts";

export interface TransportConfig extends OriginPolicy {
  authRequired: boolean;
  maxBodySize: number;
  /** Longest batch accepted; larger ones are refused whole. */
  maxBatch: number;
  server: ServerInfo;
}

export type AuthCheck = (request: globalThis.Request) => Promise<boolean>;

function reply(status: number, body: unknown, headers: Record<string, string> = {}): globalThis.Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
  });
}

function refuse(
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
): globalThis.Response {
  return reply(status, failure(null, code, message), headers);
}

export function normaliseOrigins(origins: readonly string[]): string[] {
  return origins.map(normaliseOrigin);
}

/** The CORS headers for an allowed browser origin; none when no allow-list is configured. */
function corsHeaders(origin: string | null, config: TransportConfig): Record<string, string> {
  if (origin === null || config.allowedOrigins.length === 0) return {};
  return { "access-control-allow-origin": origin, vary: "Origin" };
}

function mediaType(contentType: string): string {
  return (contentType.split(";")[0] ?? "").trim().toLowerCase();
}

type BodyResult = { text: string } | { response: globalThis.Response };

/** Reads the body, stopping as soon as it passes the limit so a huge upload is never buffered whole. */
async function readBody(
  request: globalThis.Request,
  limit: number,
  preRead: Uint8Array | undefined,
): Promise<BodyResult> {
  const tooLarge = () => ({
    response: refuse(413, INVALID_REQUEST, `request body larger than ${limit} bytes`),
  });
  if (preRead !== undefined) {
    if (preRead.byteLength > limit) return tooLarge();
    return decodeUtf8(preRead);
  }
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) return tooLarge();
  if (request.body === null) return { text: "" };
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel().catch(() => undefined);
        return tooLarge();
      }
      chunks.push(value);
    }
  } catch {
    return { response: refuse(400, INVALID_REQUEST, "the request body could not be read") };
  }
  return decodeUtf8(Buffer.concat(chunks, total));
}

function decodeUtf8(bytes: Uint8Array): BodyResult {
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    return { response: refuse(400, PARSE_ERROR, "parse error: the body is not valid UTF-8") };
  }
}

/** Answers one classified message; `undefined` when it needs no answer (notification or client response). */
async function answer(
  incoming: Incoming,
  registry: Registry,
  server: ServerInfo,
): Promise<JsonRpcResponse | undefined> {
  switch (incoming.kind) {
    case "invalid":
      return failure(null, INVALID_REQUEST, `invalid request: ${incoming.message}`);
    case "notification":
    case "response":
      return undefined;
    case "request":
      try {
        return success(incoming.id, await runMethod(incoming.method, incoming.params, registry, server));
      } catch (error) {
        if (error instanceof RpcError) return failure(incoming.id, error.code, error.message);
        // A bug in a handler (not in a user function: those are caught closer) must still not be a 5xx.
        return failure(incoming.id, INTERNAL_ERROR, "internal error");
      }
  }
}

async function answerBody(
  parsed: unknown,
  registry: Registry,
  config: TransportConfig,
  cors: Record<string, string>,
): Promise<globalThis.Response> {
  if (!Array.isArray(parsed)) {
    const incoming = classify(parsed);
    if (incoming.kind === "invalid") {
      return refuse(400, INVALID_REQUEST, `invalid request: ${incoming.message}`, cors);
    }
    const response = await answer(incoming, registry, config.server);
    return response === undefined ? reply(202, undefined, cors) : reply(200, response, cors);
  }
  // Batches (JSON-RPC 2.0 §6; MCP 2025-03-26 allowed them, 2025-06-18 dropped them): still answered,
  // because it costs nothing in a stateless server and older clients may send them.
  if (parsed.length === 0) return refuse(400, INVALID_REQUEST, "invalid request: empty batch", cors);
  if (parsed.length > config.maxBatch) {
    return refuse(400, INVALID_REQUEST, `invalid request: batch longer than ${config.maxBatch}`, cors);
  }
  const responses = await Promise.all(
    parsed.map((message) => answer(classify(message), registry, config.server)),
  );
  const present = responses.filter((response): response is JsonRpcResponse => response !== undefined);
  return present.length === 0 ? reply(202, undefined, cors) : reply(200, present, cors);
}

export async function handleHttp(
  request: globalThis.Request,
  registry: Registry,
  config: TransportConfig,
  auth: AuthCheck | undefined,
  preRead?: Uint8Array,
): Promise<globalThis.Response> {
  const origin = request.headers.get("origin");
  const problem = originProblem(request.headers.get("host"), origin, config);
  if (problem !== null) return refuse(403, INVALID_REQUEST, problem);
  const cors = corsHeaders(origin, config);
  if (request.method === "OPTIONS") {
    return reply(204, undefined, {
      ...cors,
      allow: "POST, OPTIONS",
      "access-control-allow-methods": "POST, OPTIONS",
      "access-control-allow-headers": "content-type, authorization, mcp-protocol-version, mcp-session-id",
    });
  }
  if (request.method !== "POST") {
    // No server-to-client stream (GET) and no sessions to end (DELETE): the transport's 405 answer.
    return refuse(405, INVALID_REQUEST, `method ${request.method} not allowed; use POST`, {
      allow: "POST",
      ...cors,
    });
  }
  if (config.authRequired) {
    let allowed = false;
    try {
      allowed = auth !== undefined && (await auth(request));
    } catch {
      allowed = false; // an authenticator that throws refuses, it does not crash the endpoint
    }
    if (!allowed) return refuse(401, UNAUTHORIZED, "Unauthorized", { "www-authenticate": "Bearer", ...cors });
  }
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !(SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version.trim())) {
    return refuse(
      400,
      INVALID_REQUEST,
      `unsupported MCP-Protocol-Version '${version}' (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
      cors,
    );
  }
  // Required, not only checked when present: a browser sends a body without Content-Type (a Blob)
  // cross-site with no CORS preflight, and that must never run a tool (issue #13, finding 3).
  const contentType = request.headers.get("content-type");
  if (contentType === null || mediaType(contentType) !== "application/json") {
    return refuse(415, INVALID_REQUEST, "Content-Type must be application/json", cors);
  }
  const body = await readBody(request, config.maxBodySize, preRead);
  if ("response" in body) return body.response;
  if (tooDeep(body.text))
    return refuse(400, PARSE_ERROR, "parse error: JSON nested deeper than 128 levels", cors);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.text);
  } catch {
    return refuse(400, PARSE_ERROR, "parse error: the body is not valid JSON", cors);
  }
  return answerBody(parsed, registry, config, cors);
}
