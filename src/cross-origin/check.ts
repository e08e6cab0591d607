/**
 * The cross-site request check of an unsafe request (POST, PUT, PATCH, DELETE, …), by the rules of
 * Go 1.25's `http.CrossOriginProtection` (docs/security.md, "Cross-site request protection"):
 *
 * 1. `Sec-Fetch-Site: same-origin` or `none` (the user typed it, a bookmark) passes; any other value
 *    (`cross-site`, `same-site`) is refused unless the `Origin` is trusted.
 * 2. Without `Sec-Fetch-Site` (browsers before 2023, plain HTTP on other hosts than localhost in
 *    some browsers), an `Origin` whose host is the request's `Host` passes; another one is refused
 *    unless trusted.
 * 3. Neither header: not a browser's cross-site request (curl, servers, SDKs) and passes.
 *
 * It reads headers only, so it runs before the body is read.
 */

/** Decides whether a cross-site `origin` may pass on this route; may be async (a CORS predicate). */
export type OriginTrust = (origin: string, raw: globalThis.Request) => boolean | Promise<boolean>;

/** Why `raw` is refused, or `null` when it passes. */
export function crossOriginRefusal(
  raw: globalThis.Request,
  trust: OriginTrust,
): string | null | Promise<string | null> {
  const headers = raw.headers;
  const site = headers.get("sec-fetch-site");
  if (site === "same-origin" || site === "none") return null;
  const origin = headers.get("origin");
  if (site === null) {
    if (origin === null) return null;
    if (originHost(origin) === requestHost(raw)) return null;
  }
  const reason =
    site === null
      ? `Cross-origin request refused: Origin ${origin} does not match the host and is not trusted.`
      : `Cross-site request refused: Sec-Fetch-Site is ${site} and the origin is not trusted.`;
  if (origin === null) return reason;
  const trusted = trust(origin, raw);
  if (trusted instanceof Promise) return trusted.then((ok) => (ok ? null : reason));
  return trusted ? null : reason;
}

/** `scheme://host[:port]` → `host[:port]`, lower-cased; `null` for `null` or anything else. */
function originHost(origin: string): string | null {
  const start = origin.indexOf("://");
  if (start <= 0) return null;
  const host = origin.slice(start + 3);
  return host === "" || host.includes("/") ? null : host.toLowerCase();
}

function requestHost(raw: globalThis.Request): string | null {
  const host = raw.headers.get("host");
  if (host !== null) return host.toLowerCase();
  // HTTP/2 carries it as :authority, which Bun puts in the URL.
  try {
    return new URL(raw.url).host.toLowerCase();
  } catch {
    return null;
  }
}
