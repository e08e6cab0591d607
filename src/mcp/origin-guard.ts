/**
 * DNS-rebinding and cross-site protection of the MCP endpoint (docs/mcp.md
 * "Security"; issue #13, finding 3). A page on `https://evil.example` whose
 * name an attacker re-points at 127.0.0.1 reaches a server on loopback with
 * `Host: evil.example` and `Origin: https://evil.example`; a server listening
 * on loopback therefore accepts only localhost names in Host and Origin
 * unless `allowedHosts` / `allowedOrigins` widen it. A server on another
 * address checks what those lists say (empty: no check), and relies on the
 * JSON Content-Type rule, which a browser cannot send cross-site without a
 * CORS preflight that this endpoint does not grant.
 */

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** True for a listen address only this machine can reach. */
export function isLoopbackHost(hostname: string | null): boolean {
  if (hostname === null) return true; // the in-process client: nothing listens at all
  const name = hostname.toLowerCase();
  return LOOPBACK_NAMES.has(name) || name.startsWith("127.") || name === "0:0:0:0:0:0:0:1";
}

/** `host[:port]` without the port, lower-cased; IPv6 literals keep their brackets. */
function hostName(host: string): string {
  const value = host.trim().toLowerCase();
  if (value.startsWith("[")) {
    const close = value.indexOf("]");
    return close === -1 ? value : value.slice(0, close + 1);
  }
  const colon = value.indexOf(":");
  return colon === -1 ? value : value.slice(0, colon);
}

function isLocalName(name: string): boolean {
  return LOOPBACK_NAMES.has(name) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

export interface OriginPolicy {
  /** Lower-cased `host` or `host:port` entries; empty: localhost names on loopback, else anything. */
  allowedHosts: readonly string[];
  /** Lower-cased origins without a trailing slash; empty: localhost origins on loopback, else anything. */
  allowedOrigins: readonly string[];
  /** The server listens on loopback (or is the in-process client). */
  loopback: boolean;
}

/** Why the request is refused (403), or `null`. */
export function originProblem(
  host: string | null,
  origin: string | null,
  policy: OriginPolicy,
): string | null {
  if (policy.allowedHosts.length > 0) {
    const value = (host ?? "").trim().toLowerCase();
    if (!policy.allowedHosts.includes(value) && !policy.allowedHosts.includes(hostName(value))) {
      return `host not allowed: ${host ?? "(none)"}`;
    }
  } else if (policy.loopback && host !== null && !isLocalName(hostName(host))) {
    return `host not allowed: ${host}`;
  }
  if (origin === null) return null;
  const normalised = normaliseOrigin(origin);
  if (policy.allowedOrigins.length > 0) {
    return policy.allowedOrigins.includes(normalised) ? null : `origin not allowed: ${origin}`;
  }
  if (!policy.loopback) return null;
  let url: URL;
  try {
    url = new URL(normalised);
  } catch {
    return `origin not allowed: ${origin}`;
  }
  const local = (url.protocol === "http:" || url.protocol === "https:") && isLocalName(url.hostname);
  return local ? null : `origin not allowed: ${origin}`;
}

export function normaliseOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, "");
}
