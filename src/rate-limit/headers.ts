/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers,
 * structured fields): `RateLimit-Policy: "name";q=100;w=60` (the quota and
 * its window in seconds) and `RateLimit: "name";r=42;t=17` (what remains and
 * seconds until the window resets); `Retry-After` on a 429.
 */

/** The policy's name as a structured-field string (printable ASCII; `"` and `\` escaped). */
function sfString(name: string): string {
  return `"${name.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`;
}

export function policyHeader(name: string, limit: number, windowMs: number): string {
  return `${sfString(name)};q=${limit};w=${Math.ceil(windowMs / 1000)}`;
}

/** `RateLimit` for a policy: the quoted name is made once, the numbers per request. */
export function limitHeaderOf(name: string): (remaining: number, resetMs: number) => string {
  const quoted = sfString(name);
  return (remaining, resetMs) => `${quoted};r=${Math.max(0, remaining)};t=${Math.ceil(resetMs / 1000)}`;
}

/** Whole seconds, at least 1: a client told "0" would retry at once, still inside the window. */
export function retryAfter(resetMs: number): string {
  return String(Math.max(1, Math.ceil(resetMs / 1000)));
}
