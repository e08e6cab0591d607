import { isToken } from "../http/token.ts";

/** Which origins may read responses. A RegExp must match the whole origin. */
export type CorsOrigins =
  | "*"
  | string
  | readonly string[]
  | RegExp
  | ((origin: string) => boolean | Promise<boolean>);

export interface CorsOptions {
  /** Default `"*"`. Strings are exact origins (`https://app.example`, no path); `"null"` must be listed to be allowed. */
  origins?: CorsOrigins;
  /** Methods a preflight may ask for; default GET HEAD POST PUT PATCH DELETE. `"*"`: any (the asked one is echoed). */
  methods?: readonly string[] | "*";
  /** Request headers a preflight may ask for; default `"*"`: whatever the browser asks for is echoed. */
  headers?: readonly string[] | "*";
  /** Response headers scripts may read besides the safelisted ones. */
  exposeHeaders?: readonly string[] | "*";
  /** Allow cookies and HTTP authentication (`Access-Control-Allow-Credentials: true`). Default false. */
  credentials?: boolean;
  /** Seconds a browser may cache a preflight answer (`Access-Control-Max-Age`). */
  maxAge?: number;
}

/** The options, checked and prepared once. */
export interface CorsPolicy {
  /** `Access-Control-Allow-Origin: *` on every response: the answer never depends on the origin. */
  readonly star: boolean;
  /** `null` when every method is allowed (the requested one is echoed). */
  readonly methods: ReadonlySet<string> | null;
  readonly methodsValue: string;
  /** Lower-cased; `null` when every header is allowed (the requested ones are echoed). */
  readonly headers: ReadonlySet<string> | null;
  readonly headersValue: string;
  readonly exposeValue: string | null;
  readonly credentials: boolean;
  readonly maxAgeValue: string | null;
  /** Whether a (non-`*`) policy lets this origin in. */
  allows(origin: string): boolean | Promise<boolean>;
}

// A serialized origin: scheme "://" host [":" port]; nothing after it, not even a slash.
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/(?:\[[0-9a-f:.]+\]|[^\s/?#@:[\]]+)(?::\d{1,5})?$/i;
const DEFAULT_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/** Is this a well-formed serialized origin (what a browser sends, other than `null`)? */
export function isOrigin(value: string): boolean {
  return ORIGIN.test(value);
}

/** Validates the options; every mistake is a TypeError at `cors()` time, with the offending value. */
export function corsPolicy(options: CorsOptions): CorsPolicy {
  if (typeof options !== "object" || options === null) throw new TypeError("cors options must be an object");
  const credentials = options.credentials === true;
  const origins = options.origins ?? "*";
  const star = origins === "*" && !credentials;
  const methods = tokenList("methods", options.methods ?? DEFAULT_METHODS, false);
  const headers = tokenList("headers", options.headers ?? "*", true);
  const expose =
    options.exposeHeaders === undefined ? [] : tokenList("exposeHeaders", options.exposeHeaders, false);
  if (expose === null && credentials) {
    throw new TypeError(
      'cors: exposeHeaders "*" is not a wildcard when credentials are allowed; list the headers',
    );
  }
  const maxAge = options.maxAge;
  if (maxAge !== undefined && (!Number.isSafeInteger(maxAge) || maxAge < 0)) {
    throw new TypeError("cors: maxAge must be a whole number of seconds, 0 or more");
  }
  return {
    star,
    methods: methods && new Set(methods),
    methodsValue: methods ? methods.join(", ") : "",
    headers: headers && new Set(headers),
    headersValue: headers ? headers.join(", ") : "",
    exposeValue: expose === null ? "*" : expose.length > 0 ? expose.join(", ") : null,
    credentials,
    maxAgeValue: maxAge === undefined ? null : String(maxAge),
    allows: originMatcher(origins),
  };
}

function originMatcher(origins: CorsOrigins): (origin: string) => boolean | Promise<boolean> {
  // With credentials, "*" cannot be sent: any well-formed origin is echoed, but never "null"
  // (sandboxed frames and local files), which would hand credentials to any page that sandboxes itself.
  if (origins === "*") return (origin) => origin !== "null" && isOrigin(origin);
  if (typeof origins === "function") return origins;
  if (origins instanceof RegExp) {
    // A copy without g/y, whose lastIndex would make results depend on earlier calls.
    const re = new RegExp(origins.source, origins.flags.replace(/[gy]/g, ""));
    return (origin) => {
      if (origin === "null" || !isOrigin(origin)) return false;
      // Whole-origin match, so /https:\/\/good\.example/ does not let in https://good.example.evil.
      const found = re.exec(origin);
      return found !== null && found.index === 0 && found[0].length === origin.length;
    };
  }
  const list = typeof origins === "string" ? [origins] : origins;
  if (!Array.isArray(list))
    throw new TypeError('cors: origins must be "*", an origin, a list, a RegExp or a function');
  const allowed = new Set<string>();
  for (const origin of list) {
    if (typeof origin !== "string") throw new TypeError("cors: every origin in the list must be a string");
    if (origin === "*") throw new TypeError('cors: "*" must be given alone (origins: "*"), not in a list');
    if (origin !== "null" && !isOrigin(origin)) {
      throw new TypeError(
        `cors: '${origin}' is not an origin; write scheme://host[:port] with no path or trailing slash`,
      );
    }
    allowed.add(origin.toLowerCase());
  }
  return (origin) => allowed.has(origin.toLowerCase());
}

/** A checked list of tokens, lower-cased when `lower`; `null` for the wildcard `"*"`. */
function tokenList(name: string, value: readonly string[] | "*", lower: boolean): string[] | null {
  if (value === "*") return null;
  if (!Array.isArray(value)) throw new TypeError(`cors: ${name} must be a list of names or "*"`);
  return value.map((item) => {
    if (typeof item !== "string" || !isToken(item))
      throw new TypeError(`cors: invalid name '${String(item)}' in ${name}`);
    return lower ? item.toLowerCase() : item;
  });
}
