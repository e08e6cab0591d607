import { isToken } from "./token.ts";

export interface CookieOptions {
  path?: string;
  domain?: string;
  /** Seconds; 0 or negative expires the cookie now. */
  maxAge?: number;
  expires?: Date;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: "Strict" | "Lax" | "None" | "strict" | "lax" | "none";
  /** CHIPS partitioned cookie; requires `secure`. */
  partitioned?: boolean;
}

/** Browsers drop a cookie whose name and value together exceed this many bytes (RFC 6265 §6.1 minimum). */
export const MAX_COOKIE_BYTES = 4096;

// RFC 6265 cookie-name is an RFC 7230 token; a value may not hold CTLs, spaces, `"`, `,`, `;` or `\`.
const PATH_VALUE = /^\/[^;\p{Cc}]*$/u;
// A host name or IP literal (IDN must be given as punycode); an optional leading dot is ignored by browsers.
const DOMAIN_VALUE = /^\.?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$|^\[[0-9A-Fa-f:.]+\]$/;
const SAME_SITE: Record<string, string> = { strict: "Strict", lax: "Lax", none: "None" };

/**
 * Builds one `Set-Cookie` value. Anything that could inject a header or an
 * attribute (CR, LF, `;` in a name, attribute or SameSite value) is a
 * `TypeError` at the call: a programming error, never a malformed header.
 * Cookie prefixes are honoured: `__Secure-` and `__Host-` imply `Secure`,
 * and `__Host-` refuses a `Domain` and any `Path` but `/`.
 */
export function serializeCookie(name: string, value: string, options: CookieOptions = {}): string {
  if (typeof name !== "string" || !isToken(name))
    throw new TypeError(`invalid cookie name '${String(name)}'`);
  if (typeof value !== "string") throw new TypeError(`cookie '${name}' value must be a string`);
  // encodeURIComponent would throw URIError on a lone surrogate: make it the documented TypeError.
  if (!value.isWellFormed())
    throw new TypeError(`cookie '${name}' value is not well-formed Unicode (lone surrogate)`);
  // Values are percent-encoded so that any text round-trips and nothing can break out of the attribute.
  let cookie = `${name}=${encodeURIComponent(value)}`;
  // Names are tokens and encoded values are ASCII, so characters are bytes.
  const size = cookie.length - 1;
  if (size > MAX_COOKIE_BYTES) {
    throw new TypeError(
      `cookie '${name}' is ${size} bytes; browsers drop cookies over ${MAX_COOKIE_BYTES} bytes`,
    );
  }
  const lowerName = name.toLowerCase();
  const hostPrefix = lowerName.startsWith("__host-");
  const secure = options.secure === true || hostPrefix || lowerName.startsWith("__secure-");
  if (options.maxAge !== undefined) {
    if (typeof options.maxAge !== "number" || !Number.isFinite(options.maxAge)) {
      throw new TypeError("cookie maxAge must be a finite number of seconds");
    }
    cookie += `; Max-Age=${Math.trunc(options.maxAge)}`;
  }
  if (options.expires !== undefined) {
    if (!(options.expires instanceof Date) || Number.isNaN(options.expires.getTime())) {
      throw new TypeError("cookie expires must be a valid Date");
    }
    cookie += `; Expires=${options.expires.toUTCString()}`;
  }
  if (options.domain !== undefined) {
    if (hostPrefix) throw new TypeError(`cookie '${name}' has the __Host- prefix and may not set a domain`);
    if (typeof options.domain !== "string" || !DOMAIN_VALUE.test(options.domain)) {
      throw new TypeError(`invalid cookie domain '${String(options.domain)}'`);
    }
    cookie += `; Domain=${options.domain}`;
  }
  if (options.path !== undefined) {
    if (typeof options.path !== "string" || !PATH_VALUE.test(options.path)) {
      throw new TypeError(
        `invalid cookie path '${String(options.path)}' (must start with '/', no ';' or control characters)`,
      );
    }
    if (hostPrefix && options.path !== "/")
      throw new TypeError(`cookie '${name}' has the __Host- prefix: path must be '/'`);
    cookie += `; Path=${options.path}`;
  } else if (hostPrefix) cookie += "; Path=/";
  if (secure) cookie += "; Secure";
  if (options.httpOnly) cookie += "; HttpOnly";
  if (options.sameSite !== undefined) {
    const sameSite =
      typeof options.sameSite === "string" ? SAME_SITE[options.sameSite.toLowerCase()] : undefined;
    if (sameSite === undefined) {
      throw new TypeError(
        `invalid cookie sameSite '${String(options.sameSite)}' (expected Strict, Lax or None)`,
      );
    }
    // Browsers reject SameSite=None without Secure: failing here beats a cookie that silently never arrives.
    if (sameSite === "None" && !secure)
      throw new TypeError(`cookie '${name}' has sameSite None, which requires secure`);
    cookie += `; SameSite=${sameSite}`;
  }
  if (options.partitioned) {
    if (!secure) throw new TypeError(`cookie '${name}' is partitioned, which requires secure`);
    cookie += "; Partitioned";
  }
  return cookie;
}

/**
 * Parses a `Cookie` header. Lenient as browsers are: pairs without `=` and
 * undecodable values are skipped or kept raw, never an error; the first
 * occurrence of a name wins (the most specific path, per RFC 6265 §5.4).
 */
export function parseCookies(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq === -1) continue;
    const name = pair.slice(0, eq).trim();
    if (!name || Object.hasOwn(out, name)) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    // Defined, not assigned: a cookie named `__proto__` must be a plain entry, not a prototype change.
    Object.defineProperty(out, name, {
      value: safeDecode(value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function safeDecode(value: string): string {
  if (!value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
