/**
 * Translation between webfw patterns and `Bun.serve({ routes })` keys, and
 * the compensations for the places where Bun's router behaves differently:
 *
 * - Bun keys spell the wildcard `*` (no name) and never report its capture:
 *   `wildcardValue` / `rawParams` recover it from the raw pathname.
 * - Bun percent-decodes `req.params` (and turns malformed escapes into U+FFFD);
 *   webfw's contract is raw params decoded by the framework, so `rawParams`
 *   re-reads them from the raw pathname by segment position.
 * - `/files/*` in Bun does not match `/files`, and `/users/:id` does not match
 *   `/users/42/`: `bunRouteKeys` adds the zero-segment and trailing-slash keys.
 * - Bun refuses keys with non-ASCII characters: static segments are
 *   percent-encoded as a URL parser would encode the request path.
 * - Bun silently lets `/u/:name` replace `/u/:id`; `bunRouteTable` rejects it
 *   like the other engines do.
 * - Bun matches the RAW request target, dot segments and `\` included, while
 *   `req.url` has them resolved: `nativeParamReader` spots the requests where
 *   the two differ, to be re-routed by the resolved path (src/http/request-target.ts).
 */
import { matchPath, paramsSuspect, requestPath } from "../http/request-target.ts";
import { JsMatcher } from "./js.ts";
import { normalisePath, parsePattern } from "./pattern.ts";

function keyOf(pattern: string): { base: string; wildcard: boolean } {
  const parsed = parsePattern(pattern);
  let base = "";
  let wildcard = false;
  for (const seg of parsed.segments) {
    if (seg.kind === "static") base += `/${seg.value}`;
    else if (seg.kind === "param") base += `/:${seg.name}`;
    else wildcard = true;
  }
  return { base, wildcard };
}

/**
 * The Bun route keys that together match exactly the paths the pattern matches
 * in the other engines (after `normalisePath`). The first key is the primary one.
 *
 *     bunRouteKeys("/users/:id")     // ["/users/:id", "/users/:id/"]
 *     bunRouteKeys("/files/*rest")   // ["/files/*", "/files"]
 *     bunRouteKeys("/")              // ["/", "//"]
 */
export function bunRouteKeys(pattern: string): string[] {
  const { base, wildcard } = keyOf(pattern);
  if (wildcard) return base === "" ? ["/*"] : [`${base}/*`, base];
  // The root's trailing-slash variant is "//", which normalisePath also maps to "/".
  return base === "" ? ["/", "//"] : [base, `${base}/`];
}

/** A key's shape: two keys with the same shape are the same route to Bun, whatever the param names. */
function shapeOf(key: string): string {
  // `key.replace(/\/:[^/]*/g, "/:")`, without a regular expression at start (docs/performance.md,
  // "Start-up without regular expressions").
  const parts = key.split("/");
  for (let i = 1; i < parts.length; i++) if ((parts[i] as string).startsWith(":")) parts[i] = ":";
  return parts.join("/");
}

/**
 * Builds the whole `routes` key table for a set of patterns: key → the webfw
 * pattern it serves. A pattern's primary key beats another pattern's variant
 * key of the same shape (`/files` registered beats the zero-segment variant of
 * `/files/*rest`), which keeps Bun's choice identical to the JS trie's.
 * Throws the same errors as `JsMatcher.add` for invalid or conflicting patterns.
 */
export function bunRouteTable(patterns: Iterable<string>): Map<string, string> {
  const validator = new JsMatcher();
  const byShape = new Map<string, { key: string; pattern: string; primary: boolean }>();
  const seen = new Set<string>();
  for (const pattern of patterns) {
    validator.add(pattern);
    const canonical = parsePattern(pattern).canonical;
    if (seen.has(canonical)) continue;
    seen.add(canonical);
    bunRouteKeys(pattern).forEach((key, index) => {
      const shape = shapeOf(key);
      const primary = index === 0;
      const existing = byShape.get(shape);
      if (existing && (existing.primary || !primary)) return;
      byShape.set(shape, { key, pattern, primary });
    });
  }
  const table = new Map<string, string>();
  for (const entry of byShape.values()) table.set(entry.key, entry.pattern);
  return table;
}

type ParamReader = (pathname: string) => Record<string, string>;

const readers = new Map<string, ParamReader>();

/** Compiles a reader of a pattern's raw (still percent-encoded) captures from a matched pathname. */
export function compileParamReader(pattern: string): ParamReader {
  const parsed = parsePattern(pattern);
  const slots: Array<{ name: string; index: number; wildcard: boolean }> = [];
  parsed.segments.forEach((seg, index) => {
    if (seg.kind !== "static") slots.push({ name: seg.name, index, wildcard: seg.kind === "wildcard" });
  });
  return (pathname) => {
    const params: Record<string, string> = {};
    if (slots.length === 0) return params;
    const path = normalisePath(pathname);
    const segs = path === "/" ? [] : path.slice(1).split("/");
    for (const slot of slots) {
      params[slot.name] = slot.wildcard ? segs.slice(slot.index).join("/") : (segs[slot.index] ?? "");
    }
    return params;
  };
}

/**
 * The raw captures of `pattern` in `pathname` (the request's raw pathname, as
 * Bun matched it, trailing slash allowed). Readers are cached per pattern.
 */
export function rawParams(pattern: string, pathname: string): Record<string, string> {
  let reader = readers.get(pattern);
  if (reader === undefined) {
    reader = compileParamReader(pattern);
    readers.set(pattern, reader);
  }
  return reader(pathname);
}

/** The raw `*name` capture of `pattern` in `pathname` ("" for zero segments); undefined without a wildcard. */
export function wildcardValue(pattern: string, pathname: string): string | undefined {
  const parsed = parsePattern(pattern);
  const last = parsed.segments.at(-1);
  if (last?.kind !== "wildcard") return undefined;
  return rawParams(pattern, pathname)[last.name];
}

/** The pattern the `js` trie picks for a resolved path, or null. */
export type PatternFor = (path: string) => string | null;

/**
 * Checks Bun's native match of `pattern` against the resolved path in
 * `req.url`, and returns the raw params to decode, Bun's own `params` when
 * they need no decoding (no `%` in the URL), or `null` when the request must
 * be re-routed by its resolved path (the raw target held dot segments, `\` or
 * `#`, so Bun may have picked a route the resolved path does not belong to).
 *
 * A fixed pattern needs no check: Bun matched it byte for byte and patterns
 * have no dot segments. A `:param` that Bun decoded to `.`/`..` (or with `\`
 * or `#`) is the trace of a dot segment. A wildcard hides its capture, so
 * its resolved path is matched again.
 */
export function nativeParamReader(
  pattern: string,
  patternFor: PatternFor,
): (url: string, bunParams: Record<string, string>) => Record<string, string> | null {
  const parsed = parsePattern(pattern);
  if (parsed.isStatic) return (_url, bunParams) => bunParams;
  if (parsed.segments.at(-1)?.kind === "wildcard") {
    return (url) => {
      // `rawParams` strips the one trailing slash itself, so it gets the path as received.
      return patternFor(matchPath(url)) === pattern ? rawParams(pattern, requestPath(url)) : null;
    };
  }
  return (url, bunParams) => {
    if (paramsSuspect(bunParams)) return null;
    return url.includes("%") ? rawParams(pattern, requestPath(url)) : bunParams;
  };
}
