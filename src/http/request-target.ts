/**
 * The one request-target rule every layer shares (docs/security.md, "Request
 * target"): the path the router matched is the path `request.url.path`,
 * path-scoped middlewares, params, static files and the access log see.
 *
 * What Bun hands us: `req.url` is the request target run through a WHATWG URL
 * parser (dot segments `.`/`..`/`%2e` resolved, `\` turned into `/`), prefixed
 * with `http://` and the Host header, but only when Bun can build a URL from
 * that Host. With no Host (HTTP/1.0) or one it cannot parse (`x/y`, `@`,
 * `x y`), `req.url` is the bare target, `/internal`. Reading the path as "after
 * the first `/` that follows `//`" turned that into `/` (a guard bypass), so
 * every reader goes through `pathStart` here.
 *
 * Bun's native router, on the other hand, matches the RAW target: it picks a
 * route for `/a/%2e%2e` (param `..`) and `/files/x/../../admin` (`/files/*`)
 * although `req.url` says `/` and `/admin`. `nativeMatchSuspect` spots those
 * requests so the dispatcher re-routes them by the resolved path, exactly as
 * the `js` and `ffi` engines do: dot segments are resolved before matching on
 * every engine.
 */

/** Index of the path in a request URL as Bun gives it: absolute (`http://h/p`) or bare (`/p`). */
export function pathStart(href: string): number {
  if (href.charCodeAt(0) === 47 /* / */) return 0;
  const scheme = href.indexOf("://");
  if (scheme === -1) return href.length;
  const start = href.indexOf("/", scheme + 3);
  return start === -1 ? href.length : start;
}

/** End of the path: the first `?` or `#` after `start`, else the end. */
function pathEnd(href: string, start: number): number {
  let end = href.length;
  const query = href.indexOf("?", start);
  if (query !== -1) end = query;
  const hash = href.indexOf("#", start);
  if (hash !== -1 && hash < end) end = hash;
  return end;
}

/** The path as received (still percent-encoded, dot segments already resolved), without query; `/` when empty. */
export function requestPath(href: string): string {
  const start = pathStart(href);
  const end = pathEnd(href, start);
  return end > start ? href.slice(start, end) : "/";
}

/** `requestPath` without its trailing slash (except the root): what the engines match. */
export function matchPath(href: string): string {
  const start = pathStart(href);
  let end = pathEnd(href, start);
  if (end <= start) return "/";
  if (end - start > 1 && href.charCodeAt(end - 1) === 47) end--;
  return href.slice(start, end);
}

/** The query string without `?` (empty when none), fragment excluded. */
export function requestQuery(href: string): string {
  const start = pathStart(href);
  const query = href.indexOf("?", start);
  if (query === -1) return "";
  const hash = href.indexOf("#", query);
  return href.slice(query + 1, hash === -1 ? href.length : hash);
}

/** Host and scheme of an absolute request URL; `http` and `""` for a bare target. */
export function schemeAndHost(href: string): { scheme: string; host: string } {
  const scheme = href.charCodeAt(0) === 47 ? -1 : href.indexOf("://");
  if (scheme === -1) return { scheme: "http", host: "" };
  return { scheme: href.slice(0, scheme), host: href.slice(scheme + 3, pathStart(href)) };
}

/** An absolute URL for a request URL (a bare target gets `http://localhost`), for `new Request(...)`. */
export function absoluteUrl(href: string): string {
  return href.charCodeAt(0) === 47 ? `http://localhost${href}` : href;
}

/**
 * RFC 3986 reg-name characters (unreserved, sub-delims, `%`; `:` only as the port separator) as a
 * table: a lookup per character on the per-request path. `%` is allowed because Bun checks the
 * escapes when it builds the URL. Filled from a string, not by calling a predicate 128 times at
 * import: that loop made JavaScriptCore compile the predicate with its optimising JIT in about
 * half of all starts, paging in ~1.7 MB of the JIT's own code (idle memory, docs/performance.md).
 */
const REG_NAME = new Uint8Array(128);
const REG_NAME_CHARACTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~%!$&'()*+,;=";
// By index, not `for…of`: the string iterator is engine code a one-route app touches nowhere else (~0.3 MB).
for (let i = 0; i < REG_NAME_CHARACTERS.length; i++) REG_NAME[REG_NAME_CHARACTERS.charCodeAt(i)] = 1;

const IP_LITERAL = /^\[[0-9A-Fa-f:.]+\]$|^\[v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+\]$/;

/**
 * Why the Host header is unacceptable (RFC 9112 §3.2: missing on HTTP/1.1,
 * repeated, or not `uri-host [":" port]`), or `null` when it is fine. A
 * request without any Host is HTTP/1.0 (Bun itself answers 400 to an HTTP/1.1
 * one) and is routed by its target alone.
 */
export function hostProblem(host: string | null): string | null {
  if (host === null) return null;
  if (host === "") return "empty Host header";
  let end = host.length;
  if (host.charCodeAt(0) === 91 /* [ */) {
    const close = host.indexOf("]");
    if (close === -1 || !IP_LITERAL.test(host.slice(0, close + 1))) return "invalid Host header";
    end = close + 1;
  } else {
    for (let i = 0; i < host.length; i++) {
      const code = host.charCodeAt(i);
      if (code === 58 /* : */) {
        end = i;
        break;
      }
      if (code > 127 || REG_NAME[code] !== 1) {
        // Several Host lines arrive joined as "a, b": refused like any other invalid value.
        return code === 32 && host.includes(", ") ? "more than one Host header" : "invalid Host header";
      }
    }
    if (end === 0) return "invalid Host header";
  }
  if (end === host.length) return null;
  if (host.charCodeAt(end) !== 58) return "invalid Host header";
  for (let i = end + 1; i < host.length; i++) {
    const code = host.charCodeAt(i);
    if (code < 48 || code > 57) return "invalid Host header";
  }
  return null;
}

/**
 * Why the request target itself is refused, or `null`. A `#` cannot appear in
 * an origin-form target (RFC 9112 §3.2.1); Bun keeps it in `req.url` and its
 * router treats it as path data, so the engines would disagree on it.
 */
export function targetProblem(href: string): string | null {
  return href.indexOf("#", pathStart(href)) === -1 ? null : "fragment in request target";
}

/** The Host part of the check, from the header (what `urlRequestProblem` cannot see: a second Host line). */
export function hostHeaderProblem(raw: globalThis.Request): string | null {
  return hostProblem(raw.headers.get("host"));
}

/** The target part of the check (a `#`). */
export function urlTargetProblem(raw: globalThis.Request): string | null {
  return targetProblem(raw.url);
}

/** The whole check of one request before routing: 400 message or `null`. */
export function requestProblem(raw: globalThis.Request): string | null {
  return hostHeaderProblem(raw) ?? urlTargetProblem(raw);
}

/** `requestProblem` of a request whose `req.url` the caller read already (`href`): one call for Bun's table. */
export function hrefRequestProblem(raw: globalThis.Request, href: string): string | null {
  return hostProblem(raw.headers.get("host")) ?? targetProblem(href);
}

/**
 * `requestProblem` from `req.url` alone, for a host-blind route (src/serve/host-blind.ts): reading
 * `req.headers` makes Bun build the whole Headers object, the largest cost of a bare request
 * (docs/performance.md). Bun writes a Host it could parse into `req.url` and leaves the target bare
 * otherwise; anything but a plain `reg-name[:port]` gets the exact check. For every single Host line
 * both agree (test/http/host-blind.test.ts sends them). What the URL cannot show is a second Host
 * line (Bun writes the first one): `hostHeaderProblem` runs when the handler first looks.
 */
export function urlRequestProblem(raw: globalThis.Request): string | null {
  return urlProblemOf(raw, raw.url);
}

/**
 * `urlRequestProblem` of a request whose `req.url` the caller read already (`href`): each read of
 * `req.url` makes Bun build the string again, ~360 instructions (docs/performance.md, "The params path").
 */
export function urlProblemOf(raw: globalThis.Request, href: string): string | null {
  // Bun's URL is `http://` or `https://`; anything else takes the exact check.
  let i = href.charCodeAt(4) === 58 /* : */ ? 7 : href.charCodeAt(5) === 58 ? 8 : 0;
  if (i === 0 || href.charCodeAt(i - 1) !== 47) return requestProblem(raw);
  const hostStart = i;
  // One pass over `reg-name [":" digits]` up to the path; anything else (an IP literal, an odd
  // character) is rare and gets the exact check, so this only ever says "fine" early.
  for (; i < href.length; i++) {
    const code = href.charCodeAt(i);
    if (code === 47 /* / */ || code === 58 /* : */) break;
    if (code > 127 || REG_NAME[code] !== 1) return requestProblem(raw);
  }
  if (i === hostStart) return requestProblem(raw);
  if (href.charCodeAt(i) === 58) {
    for (i++; i < href.length && href.charCodeAt(i) !== 47; i++) {
      const code = href.charCodeAt(i);
      if (code < 48 || code > 57) return requestProblem(raw);
    }
  }
  return href.indexOf("#", i) === -1 ? null : "fragment in request target";
}

/**
 * True when Bun's native router may have matched a target that differs from
 * the resolved path (dot segments, `\`, `#`): a param value Bun decoded to
 * `.`/`..` or containing `\` or `#`, or a `#` in the URL. Wildcard routes are
 * checked by the caller against the resolved path, since Bun does not report
 * their capture. False positives only cost a re-match.
 */
export function paramsSuspect(params: Record<string, string>): boolean {
  for (const name in params) {
    const value = params[name] as string;
    if (value === "." || value === ".." || value.includes("\\") || value.includes("#")) return true;
  }
  return false;
}
