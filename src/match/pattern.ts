/**
 * Route-pattern parsing shared by every matching engine, so that `js`, `ffi`
 * and `bun` agree on what a pattern means before they disagree on speed.
 */

/** One parsed pattern segment. */
export type PatternSegment =
  | { kind: "static"; value: string }
  | { kind: "param"; name: string }
  | { kind: "wildcard"; name: string };

export interface ParsedPattern {
  /** The pattern exactly as given to `add()`. */
  pattern: string;
  /** Segments of the normalised pattern; static values already percent-encoded. */
  segments: PatternSegment[];
  /** Capture names in path order; a wildcard, if any, is last. */
  names: string[];
  /** The normalised, encoded pattern: what the engines key their tables by. */
  canonical: string;
  /** True when every segment is static (eligible for the whole-path map). */
  isStatic: boolean;
}

/**
 * Strips one trailing slash (except for the root) and ensures a leading slash.
 * Request paths reach the matchers in this form.
 */
export function normalisePath(path: string): string {
  if (path === "" || path === "/") return "/";
  let p = path.charCodeAt(0) === 47 ? path : `/${path}`;
  if (p.length > 1 && p.charCodeAt(p.length - 1) === 47) p = p.slice(0, -1);
  return p;
}

const HEX = "0123456789ABCDEF";
const utf8 = new TextEncoder();

/** `.`, `..` and their encoded forms (`%2e`, `.%2E`, …): `/^(?:\.|%2e){1,2}$/i`. */
function isDotSegment(segment: string): boolean {
  if (segment.length > 6) return false;
  const lower = segment.toLowerCase();
  return (
    lower === "." ||
    lower === ".." ||
    lower === "%2e" ||
    lower === ".%2e" ||
    lower === "%2e." ||
    lower === "%2e%2e"
  );
}

/**
 * The ASCII characters a WHATWG URL parser percent-encodes in a path: C0 controls, space,
 * `"#<>?^\`{}` and DEL (everything non-ASCII is encoded too). Requests arrive encoded that way, so
 * registered static segments must be too. A table filled by index, read inline below: a predicate
 * called per character got the optimising JIT to compile it at start (~1.7 MB of the JIT's code
 * paged in), and a regular expression pages in ~0.8 MB of the engine (docs/performance.md,
 * "Start-up without regular expressions").
 */
const ENCODED_ASCII = new Uint8Array(128);
for (let code = 0; code <= 0x20; code++) ENCODED_ASCII[code] = 1;
const ENCODED_PRINTABLE = '"#<>?^`{}\x7f';
for (let i = 0; i < ENCODED_PRINTABLE.length; i++) ENCODED_ASCII[ENCODED_PRINTABLE.charCodeAt(i)] = 1;

/** True for a character (code point) a URL parser percent-encodes in a path. */
function mustEncode(code: number): boolean {
  return code >= 0x80 || ENCODED_ASCII[code] === 1;
}

/** Any character of `segment` that `mustEncode` is true for. */
function needsEncoding(segment: string): boolean {
  for (let i = 0; i < segment.length; i++) {
    const code = segment.charCodeAt(i);
    if (code >= 0x80 || ENCODED_ASCII[code] === 1) return true;
  }
  return false;
}

/**
 * Percent-encodes a registered static segment the way a URL parser encodes a
 * request path, leaving existing `%XX` escapes alone, so `/café` registered
 * matches the raw request path `/caf%C3%A9`.
 */
export function encodeStaticSegment(segment: string): string {
  if (!needsEncoding(segment)) return segment;
  let out = "";
  for (const ch of segment) {
    const code = ch.codePointAt(0)!;
    if (!mustEncode(code)) {
      out += ch;
      continue;
    }
    for (const byte of utf8.encode(ch)) out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  return out;
}

/** Splits a pattern into its raw segment strings (after normalisation); the root has none. */
export function splitPattern(pattern: string): string[] {
  const p = normalisePath(pattern);
  return p === "/" ? [] : p.slice(1).split("/");
}

/**
 * Parses and validates a pattern. Throws an `Error` naming the pattern for an
 * empty segment (`//`), an empty or repeated parameter name, or a wildcard
 * that is not the last segment.
 */
export function parsePattern(pattern: string): ParsedPattern {
  const raw = splitPattern(pattern);
  const segments: PatternSegment[] = [];
  const names: string[] = [];
  let isStatic = true;
  for (let i = 0; i < raw.length; i++) {
    const seg = raw[i]!;
    if (seg === "") throw new Error(`invalid route pattern ${JSON.stringify(pattern)}: empty segment`);
    const first = seg.charCodeAt(0);
    if (first === 58 /* : */) {
      const name = seg.slice(1);
      if (name === "")
        throw new Error(`invalid route pattern ${JSON.stringify(pattern)}: empty parameter name`);
      if (names.includes(name)) {
        throw new Error(
          `invalid route pattern ${JSON.stringify(pattern)}: parameter "${name}" appears twice`,
        );
      }
      names.push(name);
      segments.push({ kind: "param", name });
      isStatic = false;
    } else if (first === 42 /* * */) {
      if (i !== raw.length - 1) {
        throw new Error(
          `invalid route pattern ${JSON.stringify(pattern)}: a *wildcard must be the last segment`,
        );
      }
      // A bare `*` is allowed (Bun's own spelling); its capture is named "*".
      const name = seg.length > 1 ? seg.slice(1) : "*";
      if (names.includes(name)) {
        throw new Error(
          `invalid route pattern ${JSON.stringify(pattern)}: parameter "${name}" appears twice`,
        );
      }
      names.push(name);
      segments.push({ kind: "wildcard", name });
      isStatic = false;
    } else {
      // Requests never reach the router with a dot segment (it is resolved first: src/http/request-target.ts).
      if (isDotSegment(seg)) {
        throw new Error(
          `invalid route pattern ${JSON.stringify(pattern)}: dot segment "${seg}" can never match`,
        );
      }
      segments.push({ kind: "static", value: encodeStaticSegment(seg) });
    }
  }
  const canonical = `/${segments
    .map((s) =>
      s.kind === "static" ? s.value : s.kind === "param" ? `:${s.name}` : s.name === "*" ? "*" : `*${s.name}`,
    )
    .join("/")}`;
  return { pattern, segments, names, canonical, isStatic };
}
