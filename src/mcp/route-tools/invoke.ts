/**
 * Calling a route as a tool: the tool's arguments become an HTTP request of
 * the route (path parameters in the path, `args` in the query string, the body
 * as JSON), carrying the MCP caller's own headers (its `Authorization` above
 * all), and that request runs through the route's compiled dispatcher: the
 * same before/after middlewares, authentication, validation, handler and
 * return-value conversion as a request from the network. Nothing is
 * re-implemented here, so a route behaves the same whichever way it is called.
 */
import { isIPv6 } from "node:net";
import type { Server } from "bun";
import type { Dispatcher } from "../../serve/dispatch.ts";
import { RELAYED_CLIENT_HEADER, RELAYED_HEADER } from "../relay-header.ts";
import type { InputPlan } from "./schemas.ts";

/** What the call needs to know about the MCP request that asked for it. */
export interface Caller {
  /** The HTTP headers of the MCP request (`null` when there is none, e.g. a direct call). */
  headers: globalThis.Headers | null;
  /** Origin (`http://host:port`) the route's request URL gets; default `http://localhost`. */
  origin?: string;
  /** Aborted when the MCP client cancels the call; the route sees it as `request.raw.signal`. */
  signal?: AbortSignal;
  /** The MCP request's id: the route's request carries it as `X-Request-Id`, so both log lines correlate. */
  requestId?: string;
  /**
   * The MCP caller's address (`request.ipAddr` of the `/mcp` request): the route sees it as its
   * own client's, so its rate limit counts the caller as it counts the caller's HTTP requests.
   */
  address?: string | null;
  /**
   * With tracing on: writes the active trace context (the `tools/call` span's) into the route's
   * request headers, so the route's server span nests under the tool call.
   */
  propagate?: (headers: globalThis.Headers) => void;
}

/**
 * Headers of the MCP request that are about that request (its body, its MCP
 * session, its connection) and would be wrong on the route's: everything else,
 * credentials and cookies included, is passed on.
 */
const NOT_FORWARDED = new Set([
  "content-type",
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "accept",
  "accept-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "expect",
  "host",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
  // The relays' own headers (src/mcp/relay-header.ts): about how the MCP request travelled.
  RELAYED_HEADER,
  RELAYED_CLIENT_HEADER,
]);

/** The trace context headers the caller sent: replaced by the tool call's own when tracing is on. */
const TRACE_CONTEXT = ["traceparent", "tracestate"];

/** The route's request for one call, or the message of an `isError` result when the arguments cannot make one. */
export type BuiltCall =
  | { request: globalThis.Request; params: Record<string, string>; server: Server<unknown> | null }
  | { problem: string };

/** A path or query value as text: strings as they are, numbers and booleans printed, anything else as JSON. */
function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  return JSON.stringify(value) ?? "";
}

function encodePathValue(value: string, wildcard: boolean): string {
  // A wildcard spans segments: its slashes stay slashes.
  return wildcard ? value.split("/").map(encodeURIComponent).join("/") : encodeURIComponent(value);
}

export function buildCall(
  method: string,
  pattern: string,
  plan: InputPlan,
  args: unknown,
  caller: Caller,
): BuiltCall {
  if (args !== undefined && args !== null && (typeof args !== "object" || Array.isArray(args))) {
    return { problem: "the arguments must be an object" };
  }
  const input = (args ?? {}) as Record<string, unknown>;
  const known = plan.schema.properties ?? {};
  for (const name of Object.keys(input)) {
    if (!(name in known)) return { problem: `unknown argument '${name}'` };
  }

  const params: Record<string, string> = {};
  const segments: string[] = [];
  for (const segment of pattern.split("/").slice(1)) {
    const isParam = segment.startsWith(":") || segment.startsWith("*");
    if (!isParam) {
      segments.push(segment);
      continue;
    }
    const name = segment.slice(1);
    const value = input[name];
    if (value === undefined || value === null) return { problem: `missing required argument '${name}'` };
    if (typeof value === "object")
      return { problem: `argument '${name}' must be a string, number or boolean` };
    const text = asText(value);
    // A named parameter is one non-empty segment on the wire; only a wildcard may be empty.
    if (text === "" && segment.startsWith(":")) return { problem: `argument '${name}' must not be empty` };
    params[name] = text;
    segments.push(encodePathValue(text, segment.startsWith("*")));
  }

  const query = new URLSearchParams();
  for (const [name] of plan.queryArgs) {
    const value = input[name];
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) query.append(name, asText(item));
  }

  let body: string | undefined;
  if (plan.body.mode === "merged") {
    const fields: Record<string, unknown> = {};
    for (const field of plan.body.fields) if (input[field] !== undefined) fields[field] = input[field];
    body = JSON.stringify(fields);
  } else if (plan.body.mode === "property" && input.body !== undefined) {
    body = JSON.stringify(input.body);
  }

  const headers = new globalThis.Headers();
  for (const [name, value] of caller.headers ?? []) {
    if (!NOT_FORWARDED.has(name.toLowerCase())) headers.append(name, value);
  }
  headers.set("accept", "application/json, text/plain;q=0.9, */*;q=0.8");
  if (caller.requestId !== undefined) headers.set("x-request-id", caller.requestId);
  if (caller.propagate !== undefined) {
    for (const name of TRACE_CONTEXT) headers.delete(name);
    caller.propagate(headers);
  }
  if (body !== undefined) headers.set("content-type", "application/json");

  const search = query.size > 0 ? `?${query}` : "";
  const url = `${caller.origin ?? "http://localhost"}/${segments.join("/")}${search}`;
  const init: RequestInit = { method, headers };
  if (body !== undefined) init.body = body;
  if (caller.signal !== undefined) init.signal = caller.signal;
  const server = caller.address ? callerSocket(caller.address) : null;
  return { request: new globalThis.Request(url, init), params, server };
}

/**
 * What the route's pipeline asks of Bun's server for a request it did not receive itself: the
 * client's address (`request.ipAddr`, the rate limit's `"ip"` key, span attributes), which is
 * the MCP caller's. Nothing else of the server is used for a route request (only a WebSocket
 * upgrade is, and a WebSocket route is never a tool), so this stand-in answers `requestIP` alone.
 */
function callerSocket(address: string): Server<unknown> {
  const peer = { address, family: isIPv6(address) ? "IPv6" : "IPv4", port: 0 };
  return { requestIP: () => peer } as unknown as Server<unknown>;
}

/** Runs the built request through the route's dispatcher; a dispatcher never throws (it answers 500). */
export function dispatchCall(
  dispatcher: Dispatcher,
  call: { request: globalThis.Request; params: Record<string, string>; server: Server<unknown> | null },
): Promise<globalThis.Response> {
  return Promise.resolve(dispatcher(call.request, call.server, call.params));
}
