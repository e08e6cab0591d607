/**
 * The OpenTelemetry HTTP semantic conventions (stable since v1.23) that a
 * server span carries, computed from Bun's request without parsing the URL
 * twice. Written out rather than imported from
 * `@opentelemetry/semantic-conventions` (a large package) for a dozen names.
 */
import type { Attributes } from "@opentelemetry/api";
import type { Server } from "bun";
import { clientAddressOf } from "../http/client-address.ts";
import type { DispatchContext } from "../http/request-context.ts";

export const ATTR_HTTP_REQUEST_METHOD = "http.request.method";
export const ATTR_HTTP_REQUEST_METHOD_ORIGINAL = "http.request.method_original";
export const ATTR_HTTP_ROUTE = "http.route";
export const ATTR_HTTP_RESPONSE_STATUS_CODE = "http.response.status_code";
export const ATTR_URL_SCHEME = "url.scheme";
export const ATTR_URL_PATH = "url.path";
export const ATTR_URL_QUERY = "url.query";
export const ATTR_SERVER_ADDRESS = "server.address";
export const ATTR_SERVER_PORT = "server.port";
export const ATTR_CLIENT_ADDRESS = "client.address";
export const ATTR_NETWORK_PEER_ADDRESS = "network.peer.address";
export const ATTR_NETWORK_PEER_PORT = "network.peer.port";
export const ATTR_USER_AGENT = "user_agent.original";
export const ATTR_ERROR_TYPE = "error.type";
export const ATTR_THREAD_ID = "thread.id";
/** Not a semantic convention (none exists for it yet): webfw's namespace, as the conventions ask. */
export const ATTR_REQUEST_ID = "webfw.request.id";

/** The methods the conventions name; any other is reported as `_OTHER` with the original beside it. */
const KNOWN_METHODS = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "CONNECT",
  "OPTIONS",
  "TRACE",
  "PATCH",
]);

/** `http.request.method` as the conventions want it (`_OTHER` for methods outside the list). */
export function conventionalMethod(method: string): string {
  return KNOWN_METHODS.has(method) ? method : "_OTHER";
}

/**
 * The span name: `{method} {route}` when a route matched, else `{method}`
 * (never the raw path: it would give every URL its own span name).
 */
export function serverSpanName(method: string, route: string | null): string {
  const known = KNOWN_METHODS.has(method) ? method : "HTTP";
  return route === null ? known : `${known} ${route}`;
}

/** The request's attributes, for a span that is being recorded. */
export function requestAttributes(
  raw: globalThis.Request,
  server: Server<unknown> | null,
  route: string | null,
  context?: DispatchContext,
): Attributes {
  const url = raw.url;
  const method = raw.method;
  const attributes: Attributes = { [ATTR_HTTP_REQUEST_METHOD]: conventionalMethod(method) };
  if (!KNOWN_METHODS.has(method)) attributes[ATTR_HTTP_REQUEST_METHOD_ORIGINAL] = method;
  if (route !== null) attributes[ATTR_HTTP_ROUTE] = route;
  // Bun's request URL is absolute: scheme://authority/path?query.
  const schemeEnd = url.indexOf("://");
  const pathStart = schemeEnd === -1 ? url.indexOf("/") : url.indexOf("/", schemeEnd + 3);
  if (schemeEnd !== -1) attributes[ATTR_URL_SCHEME] = url.slice(0, schemeEnd);
  if (pathStart !== -1) {
    const queryStart = url.indexOf("?", pathStart);
    attributes[ATTR_URL_PATH] = queryStart === -1 ? url.slice(pathStart) : url.slice(pathStart, queryStart);
    if (queryStart !== -1 && queryStart < url.length - 1)
      attributes[ATTR_URL_QUERY] = url.slice(queryStart + 1);
  }
  const host = raw.headers.get("host");
  if (host) {
    const { address, port } = splitHost(host);
    attributes[ATTR_SERVER_ADDRESS] = address;
    if (port !== undefined) attributes[ATTR_SERVER_PORT] = port;
  }
  const peer = server?.requestIP(raw);
  if (peer) {
    // `client.address` is the app's client (behind `trustProxy`, the proxies' report); the peer is the socket.
    attributes[ATTR_CLIENT_ADDRESS] = clientAddressOf(raw, server, context) ?? peer.address;
    attributes[ATTR_NETWORK_PEER_ADDRESS] = peer.address;
    attributes[ATTR_NETWORK_PEER_PORT] = peer.port;
  }
  const agent = raw.headers.get("user-agent");
  if (agent) attributes[ATTR_USER_AGENT] = agent;
  return attributes;
}

/** `host`, `host:port`, `[v6]:port` → address and port. */
export function splitHost(host: string): { address: string; port?: number } {
  if (host.startsWith("[")) {
    const close = host.indexOf("]");
    if (close === -1) return { address: host };
    const port = host.slice(close + 1).startsWith(":") ? Number(host.slice(close + 2)) : undefined;
    return { address: host.slice(1, close), port: validPort(port) };
  }
  const colon = host.lastIndexOf(":");
  if (colon === -1) return { address: host };
  return { address: host.slice(0, colon), port: validPort(Number(host.slice(colon + 1))) };
}

function validPort(port: number | undefined): number | undefined {
  return port !== undefined && Number.isInteger(port) && port >= 0 && port <= 65535 ? port : undefined;
}
