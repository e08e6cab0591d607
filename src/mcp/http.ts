/**
 * The HTTP face of `/mcp` (Streamable HTTP): every check that needs no
 * protocol engine happens here, before the engine is loaded or asked:
 * DNS-rebinding protection (Host, Origin), CORS preflight, authentication,
 * the protocol-version header, Content-Type, a bounded body read and JSON
 * parsing. Malformed input ends here as a 4xx with a JSON-RPC error body;
 * nothing becomes a 5xx.
 */

import { mediaType } from "../http/media-type.ts";
import type { Request } from "../http/request.ts";
import { readAtMost } from "../stream/read-at-most.ts";
import type { GateConfig } from "./auth/gate.ts";
import type { EngineInput, McpEngine } from "./engine-types.ts";
import { authenticateMcp, authorizeCalls } from "./http-auth.ts";
import { classify, INVALID_REQUEST, PARSE_ERROR, tooDeep } from "./jsonrpc.ts";
import { type OriginPolicy, originProblem } from "./origin-guard.ts";
import { SUPPORTED_PROTOCOL_VERSIONS } from "./versions.ts";

export interface HttpConfig extends OriginPolicy {
  authRequired: boolean;
  maxBodySize: number;
  /** Longest batch accepted; larger ones are refused whole. */
  maxBatch: number;
  stateless: boolean;
}

/** Where a request for a session this process does not hold goes (another `--processes` child). */
export type SessionRelay = (
  request: Request,
  sessionId: string,
  body: Uint8Array | undefined,
) => Promise<globalThis.Response | null>;

/** A JSON-RPC error with no id, as an HTTP answer with `status`. */
export function refuse(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): globalThis.Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status, headers });
}

/** The CORS headers for an allowed browser origin; none when no allow-list is configured. */
function corsHeaders(origin: string | null, config: HttpConfig): Record<string, string> {
  if (origin === null || config.allowedOrigins.length === 0) return {};
  return {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": "mcp-session-id, mcp-protocol-version",
    vary: "Origin",
  };
}

type BodyResult = { bytes: Uint8Array } | { response: globalThis.Response };

/** Reads the body, stopping as soon as it passes the limit so a huge upload is never buffered whole. */
async function readBody(
  raw: globalThis.Request,
  limit: number,
  preRead: Uint8Array | undefined,
): Promise<BodyResult> {
  const tooLarge = () => ({
    response: refuse(413, INVALID_REQUEST, `request body larger than ${limit} bytes`),
  });
  if (preRead !== undefined) return preRead.byteLength > limit ? tooLarge() : { bytes: preRead };
  const declared = raw.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) return tooLarge();
  let bytes: Uint8Array | null;
  try {
    bytes = await readAtMost(raw.body, limit);
  } catch {
    return { response: refuse(400, INVALID_REQUEST, "the request body could not be read") };
  }
  return bytes === null ? tooLarge() : { bytes };
}

type Parsed = { value: unknown } | { response: globalThis.Response };

function parseBody(bytes: Uint8Array, cors: Record<string, string>): Parsed {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { response: refuse(400, PARSE_ERROR, "parse error: the body is not valid UTF-8", cors) };
  }
  if (tooDeep(text))
    return { response: refuse(400, PARSE_ERROR, "parse error: JSON nested deeper than 128 levels", cors) };
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { response: refuse(400, PARSE_ERROR, "parse error: the body is not valid JSON", cors) };
  }
}

/** What the POST body holds, or the 400 for a body that is not JSON-RPC. */
function inspect(
  value: unknown,
  config: HttpConfig,
  cors: Record<string, string>,
): { initialize: boolean; requestCount: number } | globalThis.Response {
  const messages = Array.isArray(value) ? value : [value];
  if (Array.isArray(value)) {
    if (value.length === 0) return refuse(400, INVALID_REQUEST, "invalid request: empty batch", cors);
    if (value.length > config.maxBatch) {
      return refuse(400, INVALID_REQUEST, `invalid request: batch longer than ${config.maxBatch}`, cors);
    }
  }
  let initialize = false;
  let requestCount = 0;
  for (const message of messages) {
    const incoming = classify(message);
    if (incoming.kind === "invalid")
      return refuse(400, INVALID_REQUEST, `invalid request: ${incoming.message}`, cors);
    if (incoming.kind === "request") {
      // JSON-RPC allows by-position params; MCP never uses them. A lone request gets its own -32602.
      if (Array.isArray(incoming.params)) {
        if (Array.isArray(value))
          return refuse(400, INVALID_REQUEST, "invalid request: params must be an object", cors);
        return Response.json(
          { jsonrpc: "2.0", id: incoming.id, error: { code: -32602, message: "params must be an object" } },
          { headers: cors },
        );
      }
      requestCount++;
      if (incoming.method === "initialize") initialize = true;
    }
  }
  return { initialize, requestCount };
}

/** Adds the CORS headers to an engine answer (its headers may be immutable). */
function withCors(response: globalThis.Response, cors: Record<string, string>): globalThis.Response {
  if (Object.keys(cors).length === 0) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(cors)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

export interface HttpDeps {
  config: HttpConfig;
  /** Who may call, and which tools (src/mcp/auth/gate.ts); made by each build's endpoint (src/mcp/endpoint.ts). */
  gate: GateConfig;
  engine: () => Promise<McpEngine>;
  relay: SessionRelay | null;
}

export async function handleHttp(
  request: Request,
  preRead: Uint8Array | undefined,
  deps: HttpDeps,
): Promise<globalThis.Response> {
  const { config } = deps;
  const raw = request.raw;
  const origin = raw.headers.get("origin");
  const problem = originProblem(raw.headers.get("host"), origin, config);
  if (problem !== null) return refuse(403, INVALID_REQUEST, problem);
  const cors = corsHeaders(origin, config);
  const allow = config.stateless ? "POST, OPTIONS" : "GET, POST, DELETE, OPTIONS";
  if (raw.method === "OPTIONS") {
    return new Response(null, {
      status: 204,
      headers: {
        ...cors,
        allow,
        "access-control-allow-methods": allow,
        "access-control-allow-headers":
          "content-type, accept, authorization, mcp-protocol-version, mcp-session-id, last-event-id",
      },
    });
  }
  if (!["GET", "POST", "DELETE"].includes(raw.method) || (config.stateless && raw.method !== "POST")) {
    const message = config.stateless
      ? `method ${raw.method} not allowed: this endpoint is stateless; use POST`
      : `method ${raw.method} not allowed`;
    return refuse(405, INVALID_REQUEST, message, { allow, ...cors });
  }
  const denied = await authenticateMcp(request, deps.gate, cors);
  if (denied !== null) return denied;
  const version = raw.headers.get("mcp-protocol-version")?.trim();
  if (version !== undefined && !(SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
    return refuse(
      400,
      INVALID_REQUEST,
      `unsupported MCP-Protocol-Version '${version}' (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
      cors,
    );
  }
  const sessionId = raw.headers.get("mcp-session-id");
  const accept = raw.headers.get("accept") ?? "";
  const input: EngineInput = {
    raw,
    request,
    sessionId: config.stateless ? null : sessionId,
    body: undefined,
    initialize: false,
    requestCount: 0,
    acceptsStream: accept.includes("text/event-stream") || accept.includes("*/*"),
    protocolVersion: version,
  };
  let bytes: Uint8Array | undefined;
  if (raw.method === "POST") {
    // Required, not only checked when present: a browser sends a body without Content-Type (a Blob)
    // cross-site with no CORS preflight, and that must never run a tool (issue #13, finding 3).
    const contentType = raw.headers.get("content-type");
    if (contentType === null || mediaType(contentType) !== "application/json") {
      return refuse(415, INVALID_REQUEST, "Content-Type must be application/json", cors);
    }
    const body = await readBody(raw, config.maxBodySize, preRead);
    if ("response" in body) return withCors(body.response, cors);
    bytes = body.bytes;
    const parsed = parseBody(bytes, cors);
    if ("response" in parsed) return parsed.response;
    const shape = inspect(parsed.value, config, cors);
    if (shape instanceof Response) return shape;
    // Tools with their own authRequired/scopes: refused here, in HTTP, so a client can run the OAuth flow.
    const refused = await authorizeCalls(request, parsed.value, deps.gate, cors);
    if (refused !== null) return refused;
    input.body = parsed.value;
    input.initialize = shape.initialize;
    input.requestCount = shape.requestCount;
  }
  const engine = await deps.engine();
  if (input.sessionId !== null && deps.relay !== null && !engine.hasSession(input.sessionId)) {
    const relayed = await deps.relay(request, input.sessionId, bytes);
    if (relayed !== null) return relayed;
  }
  return withCors(await engine.handle(input), cors);
}
