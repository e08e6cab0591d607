/**
 * JSON-RPC 2.0 message shapes, classification of incoming messages, and the
 * builders for outgoing ones. Nothing here knows about MCP methods.
 */

/** MCP ids are strings or integers; `null` is never a valid request id. */
export type JsonRpcId = string | number;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** Server-defined code (the -32000..-32099 range) for a refused credential. */
export const UNAUTHORIZED = -32001;

export type JsonObject = Record<string, unknown>;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccess {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result: JsonObject;
}

export interface JsonRpcFailure {
  jsonrpc: "2.0";
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

/** What one element of a POST body turned out to be. */
export type Incoming =
  | { kind: "request"; id: JsonRpcId; method: string; params: unknown }
  | { kind: "notification"; method: string; params: unknown }
  /** A client's answer to a server request; this stateless server never sends any, so it is only acknowledged. */
  | { kind: "response" }
  | { kind: "invalid"; message: string };

/** Raised inside a method handler to answer with a JSON-RPC error instead of a result. */
export class RpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = "RpcError";
    this.code = code;
  }
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** Sorts one decoded JSON value into request / notification / response / invalid. */
export function classify(message: unknown): Incoming {
  if (!isObject(message)) return { kind: "invalid", message: "a JSON-RPC message must be an object" };
  if (message.jsonrpc !== "2.0") return { kind: "invalid", message: "'jsonrpc' must be \"2.0\"" };
  const hasId = "id" in message && message.id !== undefined;
  if (hasId && !isId(message.id)) {
    return { kind: "invalid", message: "'id' must be a string or a number" };
  }
  if (!("method" in message)) {
    if (hasId && ("result" in message || "error" in message)) return { kind: "response" };
    return { kind: "invalid", message: "'method' is required" };
  }
  if (typeof message.method !== "string" || message.method === "") {
    return { kind: "invalid", message: "'method' must be a non-empty string" };
  }
  const params = message.params;
  if (params !== undefined && (params === null || typeof params !== "object")) {
    return { kind: "invalid", message: "'params' must be an object" };
  }
  if (hasId) return { kind: "request", id: message.id as JsonRpcId, method: message.method, params };
  return { kind: "notification", method: message.method, params };
}

export function success(id: JsonRpcId, result: JsonObject): JsonRpcSuccess {
  return { jsonrpc: "2.0", id, result };
}

export function failure(id: JsonRpcId | null, code: number, message: string): JsonRpcFailure {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

const DEPTH_LIMIT = 128;

/**
 * Whether the JSON text nests arrays/objects deeper than the framework-wide
 * limit (128). Scanned before `JSON.parse` so a hostile body cannot build a
 * structure that later recursive code (user tools, `JSON.stringify`) chokes on.
 */
export function tooDeep(text: string, limit = DEPTH_LIMIT): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
