/**
 * The `WWW-Authenticate: Bearer …` challenges of the MCP endpoint (RFC 6750 §3,
 * RFC 9728 §5.1): every 401 and 403 names the resource metadata, so a client that
 * holds no token (or the wrong one) can find where to get one.
 */

export interface ChallengeParams {
  /** Absolute URL of the protected-resource metadata document. */
  resourceMetadata: string;
  /** `invalid_token` (a token was sent and refused), `insufficient_scope` (403), or none (no token). */
  error?: "invalid_token" | "insufficient_scope";
  /** Scopes the request needs, space-separated in the header. */
  scopes?: readonly string[];
  description?: string;
}

/** A quoted-string (RFC 9110 §5.6.4): `"` and `\` escaped, control characters dropped. */
function quoted(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return `"${value.replace(/[\x00-\x1f\x7f]/g, "").replace(/["\\]/g, "\\$&")}"`;
}

export function bearerChallenge(params: ChallengeParams): string {
  const parts: string[] = [];
  if (params.error !== undefined) parts.push(`error=${quoted(params.error)}`);
  if (params.scopes !== undefined && params.scopes.length > 0)
    parts.push(`scope=${quoted(params.scopes.join(" "))}`);
  parts.push(`resource_metadata=${quoted(params.resourceMetadata)}`);
  if (params.description !== undefined) parts.push(`error_description=${quoted(params.description)}`);
  return `Bearer ${parts.join(", ")}`;
}
