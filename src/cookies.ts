export interface CookieOptions {
  path?: string;
  domain?: string;
  /** Seconds; 0 or negative expires the cookie now. */
  maxAge?: number;
  expires?: Date;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: "Strict" | "Lax" | "None" | "strict" | "lax" | "none";
  partitioned?: boolean;
}

// RFC 6265 cookie-name is an RFC 7230 token; a value may not hold CTLs, spaces, `"`, `,`, `;` or `\`.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const ATTRIBUTE_VALUE = /^[^\x00-\x1f\x7f;]*$/;

/** Builds one `Set-Cookie` value; refuses names, values and attributes that could inject headers or attributes. */
export function serializeCookie(name: string, value: string, options: CookieOptions = {}): string {
  if (!TOKEN.test(name)) throw new TypeError(`invalid cookie name '${name}'`);
  // Values are percent-encoded so that any text round-trips and nothing can break out of the attribute.
  let cookie = `${name}=${encodeURIComponent(value)}`;
  if (options.maxAge !== undefined) {
    if (!Number.isFinite(options.maxAge)) throw new TypeError("cookie maxAge must be a finite number");
    cookie += `; Max-Age=${Math.trunc(options.maxAge)}`;
  }
  if (options.expires) cookie += `; Expires=${options.expires.toUTCString()}`;
  if (options.domain !== undefined) cookie += `; Domain=${checkedAttribute("domain", options.domain)}`;
  if (options.path !== undefined) cookie += `; Path=${checkedAttribute("path", options.path)}`;
  if (options.secure) cookie += "; Secure";
  if (options.httpOnly) cookie += "; HttpOnly";
  if (options.sameSite) {
    const sameSite = options.sameSite[0]!.toUpperCase() + options.sameSite.slice(1).toLowerCase();
    cookie += `; SameSite=${sameSite}`;
  }
  if (options.partitioned) cookie += "; Partitioned";
  return cookie;
}

function checkedAttribute(attribute: string, value: string): string {
  if (!ATTRIBUTE_VALUE.test(value)) throw new TypeError(`invalid cookie ${attribute} '${value}'`);
  return value;
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
    out[name] = safeDecode(value);
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
