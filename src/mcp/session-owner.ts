/**
 * Who an MCP session belongs to, and which client it is counted against
 * (docs/mcp.md, "Sessions"). A session is bound to the identity that sent its
 * `initialize` (or to no identity): a request for it from anyone else is
 * answered as if the session did not exist, as the MCP spec asks ("servers
 * SHOULD bind session IDs to user-specific information"). Sessions are
 * counted per client (the identity, else the address) so that one client's
 * `initialize` flood never takes another client's place.
 */
import type { Identity } from "../auth/identity.ts";
import type { Request } from "../http/request.ts";

/**
 * Claims that change from one token of a user to the next (a refreshed token must keep its
 * session): left out when the whole claim set is the principal.
 */
const PER_TOKEN_CLAIMS = new Set(["exp", "iat", "nbf", "jti", "auth_time"]);

function isKey(value: unknown): value is string | number {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** JSON with object keys sorted, so that two equal claim sets always give the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The principal of an identity: `iss` + `sub` (OpenID Connect's unique user key), else `sub`,
 * `user` or `id` (as the rate limit's `"identity"` key reads them), else every claim but the
 * per-token ones. `""` is no identity (an anonymous caller).
 */
export function principalOf(identity: Identity | null | undefined): string {
  if (identity === null || identity === undefined) return "";
  const claims = identity.claims as Record<string, unknown>;
  const { sub, iss } = claims;
  if (isKey(sub)) return typeof iss === "string" ? `sub:${iss} ${sub}` : `sub:${sub}`;
  if (isKey(claims.user)) return `user:${claims.user}`;
  if (isKey(claims.id)) return `id:${claims.id}`;
  const stable: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(claims)) if (!PER_TOKEN_CLAIMS.has(name)) stable[name] = value;
  return `claims:${canonical(stable)}`;
}

/**
 * The client a new session counts against: its identity when it has one (one user, many
 * addresses), else its address (`request.ipAddr`: the socket's, or what the app's proxy settings
 * make of it).
 */
export function clientOf(request: Request, principal: string): string {
  return principal !== "" ? `identity ${principal}` : `address ${request.ipAddr ?? "unknown"}`;
}
