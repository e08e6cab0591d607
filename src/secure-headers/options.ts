/**
 * The `secureHeaders` option (docs/security.md, "Secure response headers"): what a user writes, its
 * checks (a TypeError at `new Webfw` or at the build, naming the bad value) and the defaults, in
 * the spirit of helmet and Hono's `secureHeaders`. src/secure-headers/policy.ts turns the resolved
 * form into header values once.
 */

/** Written in a CSP source list, stands for this request's `'nonce-…'` (also `request.cspNonce`). */
export const NONCE = "'nonce'";

/** A CSP source list; `false` leaves the directive out. */
export type CspSources = readonly string[] | false;

export interface ContentSecurityPolicyOptions {
  /**
   * Directives by name, dashed (`"script-src"`) or camelCase (`scriptSrc`), merged over the defaults
   * (unless `useDefaults: false`); `[]` writes a directive with no value (`upgrade-insecure-requests`).
   */
  directives?: Record<string, CspSources>;
  /** Start from the default directives (default true). */
  useDefaults?: boolean;
  /** Send `Content-Security-Policy-Report-Only` instead: the browser reports, blocks nothing. */
  reportOnly?: boolean;
}

export interface StrictTransportSecurityOptions {
  /** Seconds; default 31536000 (one year). */
  maxAge?: number;
  /** Default true. */
  includeSubDomains?: boolean;
  /** Default false: only add it once the domain is meant for the browsers' preload lists. */
  preload?: boolean;
}

/** A feature of `Permissions-Policy`: `[]` (nobody), `"self"`, `"*"`, or origins (with `"self"`). */
export type PermissionAllowList = readonly string[] | "self" | "*";

export type ReferrerPolicyValue =
  | "no-referrer"
  | "no-referrer-when-downgrade"
  | "origin"
  | "origin-when-cross-origin"
  | "same-origin"
  | "strict-origin"
  | "strict-origin-when-cross-origin"
  | "unsafe-url";

/** `new Webfw(path, { secureHeaders: true | SecureHeadersOptions })`; every field `false` turns its header off. */
export interface SecureHeadersOptions {
  /** `Content-Security-Policy`; the default has a per-request nonce in `script-src`. */
  contentSecurityPolicy?: false | ContentSecurityPolicyOptions;
  /** `Strict-Transport-Security`, sent over TLS only (never on plain HTTP, where browsers ignore it). */
  strictTransportSecurity?: false | StrictTransportSecurityOptions;
  /** `X-Content-Type-Options: nosniff` (default true). */
  contentTypeOptions?: boolean;
  /** `X-Frame-Options` and CSP `frame-ancestors` (`'self'` / `'none'`); default `"SAMEORIGIN"`. */
  frameOptions?: "SAMEORIGIN" | "DENY" | false;
  /** Default `"no-referrer"`. */
  referrerPolicy?: ReferrerPolicyValue | false;
  /** `Cross-Origin-Opener-Policy`; default `"same-origin"`. */
  crossOriginOpenerPolicy?: "same-origin" | "same-origin-allow-popups" | "noopener-allow-popups" | false;
  /** `Cross-Origin-Resource-Policy`; default `"same-origin"`. */
  crossOriginResourcePolicy?: "same-origin" | "same-site" | "cross-origin" | false;
  /** `Cross-Origin-Embedder-Policy`; default off (it breaks embedding anything that does not opt in). */
  crossOriginEmbedderPolicy?: "require-corp" | "credentialless" | false;
  /** `Permissions-Policy` by feature; default: the powerful features (camera, microphone, …) off. */
  permissionsPolicy?: Record<string, PermissionAllowList> | false;
  /** `Origin-Agent-Cluster: ?1` (default true). */
  originAgentCluster?: boolean;
  /** `X-DNS-Prefetch-Control: off` (default true). */
  dnsPrefetchControl?: boolean;
  /** `X-Permitted-Cross-Domain-Policies: none` (default true). */
  permittedCrossDomainPolicies?: boolean;
}

/** Every field decided; what the app's config holds. */
export interface ResolvedSecureHeaders {
  contentSecurityPolicy: { directives: Map<string, readonly string[]>; reportOnly: boolean } | null;
  strictTransportSecurity: string | null;
  contentTypeOptions: boolean;
  frameOptions: "SAMEORIGIN" | "DENY" | null;
  referrerPolicy: ReferrerPolicyValue | null;
  crossOriginOpenerPolicy: string | null;
  crossOriginResourcePolicy: string | null;
  crossOriginEmbedderPolicy: string | null;
  permissionsPolicy: string | null;
  originAgentCluster: boolean;
  dnsPrefetchControl: boolean;
  permittedCrossDomainPolicies: boolean;
}

/** helmet's directives, with this request's nonce for scripts; `frame-ancestors` follows `frameOptions`. */
const DEFAULT_DIRECTIVES: [string, readonly string[]][] = [
  ["default-src", ["'self'"]],
  ["base-uri", ["'self'"]],
  ["font-src", ["'self'", "https:", "data:"]],
  ["form-action", ["'self'"]],
  ["img-src", ["'self'", "data:"]],
  ["object-src", ["'none'"]],
  ["script-src", ["'self'", NONCE]],
  ["script-src-attr", ["'none'"]],
  ["style-src", ["'self'", "https:", "'unsafe-inline'"]],
  // Sent over TLS only (src/secure-headers/policy.ts): on plain HTTP it would break every subresource.
  ["upgrade-insecure-requests", []],
];

/** Off: features a web page rarely needs and a hostile frame or script would like. */
const DEFAULT_PERMISSIONS: Record<string, PermissionAllowList> = {
  accelerometer: [],
  camera: [],
  geolocation: [],
  gyroscope: [],
  magnetometer: [],
  microphone: [],
  payment: [],
  usb: [],
};

const REFERRER = new Set<string>([
  "no-referrer",
  "no-referrer-when-downgrade",
  "origin",
  "origin-when-cross-origin",
  "same-origin",
  "strict-origin",
  "strict-origin-when-cross-origin",
  "unsafe-url",
]);
const DIRECTIVE_NAME = /^[a-z][a-z0-9-]*$/;
const FEATURE_NAME = /^[a-z][a-z0-9-]*$/;
// A CSP source: visible ASCII without the list separators (`;` `,`) nor `"`; quotes are the author's business.
const SOURCE = /^[!\x23-\x2b\x2d-\x3a\x3c-\x7e]+$/;
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#"]+$/i;

/** The app's option: `undefined`/`false` → `null` (off, costs nothing), `true` → the defaults. */
export function resolveSecureHeaders(
  option: boolean | SecureHeadersOptions | undefined,
  where = "secureHeaders",
): ResolvedSecureHeaders | null {
  if (option === undefined || option === false) return null;
  if (option === true) return resolveOver(null, {}, where);
  return resolveOver(null, option, where);
}

/**
 * A route's `secureHeaders` over the app's: `false` turns them off; an object changes the fields it
 * names (CSP directives one by one: `false` removes one). Over an app without the option, an object
 * turns them on for that route, from the defaults.
 */
export function resolveRouteSecureHeaders(
  app: ResolvedSecureHeaders | null,
  option: false | SecureHeadersOptions,
  where: string,
): ResolvedSecureHeaders | null {
  if (option === false) return null;
  return resolveOver(app, option, where);
}

function resolveOver(
  base: ResolvedSecureHeaders | null,
  options: SecureHeadersOptions,
  where: string,
): ResolvedSecureHeaders {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(`${where} must be true, false or an options object`);
  }
  const known = new Set(Object.keys(FIELDS));
  for (const key of Object.keys(options)) {
    if (!known.has(key)) throw new TypeError(`${where}: unknown option '${key}'`);
  }
  const frameOptions = pick(options.frameOptions, base?.frameOptions, "SAMEORIGIN", where, "frameOptions", [
    "SAMEORIGIN",
    "DENY",
  ]);
  return {
    contentSecurityPolicy: csp(options.contentSecurityPolicy, base, frameOptions, where),
    strictTransportSecurity: hsts(options.strictTransportSecurity, base, where),
    contentTypeOptions: flag(
      options.contentTypeOptions,
      base?.contentTypeOptions,
      where,
      "contentTypeOptions",
    ),
    frameOptions,
    referrerPolicy: pick(
      options.referrerPolicy,
      base?.referrerPolicy,
      "no-referrer",
      where,
      "referrerPolicy",
      [...REFERRER],
    ) as ReferrerPolicyValue | null,
    crossOriginOpenerPolicy: pick(
      options.crossOriginOpenerPolicy,
      base?.crossOriginOpenerPolicy,
      "same-origin",
      where,
      "crossOriginOpenerPolicy",
      ["same-origin", "same-origin-allow-popups", "noopener-allow-popups"],
    ),
    crossOriginResourcePolicy: pick(
      options.crossOriginResourcePolicy,
      base?.crossOriginResourcePolicy,
      "same-origin",
      where,
      "crossOriginResourcePolicy",
      ["same-origin", "same-site", "cross-origin"],
    ),
    crossOriginEmbedderPolicy:
      options.crossOriginEmbedderPolicy === undefined
        ? (base?.crossOriginEmbedderPolicy ?? null)
        : pick(options.crossOriginEmbedderPolicy, null, null, where, "crossOriginEmbedderPolicy", [
            "require-corp",
            "credentialless",
          ]),
    permissionsPolicy: permissions(options.permissionsPolicy, base, where),
    originAgentCluster: flag(
      options.originAgentCluster,
      base?.originAgentCluster,
      where,
      "originAgentCluster",
    ),
    dnsPrefetchControl: flag(
      options.dnsPrefetchControl,
      base?.dnsPrefetchControl,
      where,
      "dnsPrefetchControl",
    ),
    permittedCrossDomainPolicies: flag(
      options.permittedCrossDomainPolicies,
      base?.permittedCrossDomainPolicies,
      where,
      "permittedCrossDomainPolicies",
    ),
  };
}

const FIELDS: Record<keyof SecureHeadersOptions, true> = {
  contentSecurityPolicy: true,
  strictTransportSecurity: true,
  contentTypeOptions: true,
  frameOptions: true,
  referrerPolicy: true,
  crossOriginOpenerPolicy: true,
  crossOriginResourcePolicy: true,
  crossOriginEmbedderPolicy: true,
  permissionsPolicy: true,
  originAgentCluster: true,
  dnsPrefetchControl: true,
  permittedCrossDomainPolicies: true,
};

function flag(value: boolean | undefined, base: boolean | undefined, where: string, name: string): boolean {
  if (value === undefined) return base ?? true;
  if (typeof value !== "boolean") throw new TypeError(`${where}.${name} must be true or false`);
  return value;
}

function pick<V extends string>(
  value: V | false | undefined,
  base: V | null | undefined,
  fallback: V | null,
  where: string,
  name: string,
  allowed: readonly string[],
): V | null {
  if (value === undefined) return base === undefined ? fallback : base;
  if (value === false) return null;
  if (!allowed.includes(value)) {
    throw new TypeError(
      `${where}.${name} must be one of ${allowed.join(", ")} or false, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function hsts(
  value: false | StrictTransportSecurityOptions | undefined,
  base: ResolvedSecureHeaders | null,
  where: string,
): string | null {
  if (value === undefined) return base ? base.strictTransportSecurity : "max-age=31536000; includeSubDomains";
  if (value === false) return null;
  if (typeof value !== "object" || value === null) {
    throw new TypeError(
      `${where}.strictTransportSecurity must be false or { maxAge, includeSubDomains, preload }`,
    );
  }
  const maxAge = value.maxAge ?? 31_536_000;
  if (!Number.isSafeInteger(maxAge) || maxAge < 0) {
    throw new TypeError(
      `${where}.strictTransportSecurity.maxAge must be a whole number of seconds, 0 or more`,
    );
  }
  const preload = value.preload === true;
  const subDomains = value.includeSubDomains ?? true;
  // Browsers' preload lists refuse an entry without a year and the subdomains.
  if (preload && (maxAge < 31_536_000 || !subDomains)) {
    throw new TypeError(
      `${where}.strictTransportSecurity: preload needs maxAge >= 31536000 and includeSubDomains`,
    );
  }
  return `max-age=${maxAge}${subDomains ? "; includeSubDomains" : ""}${preload ? "; preload" : ""}`;
}

function csp(
  value: false | ContentSecurityPolicyOptions | undefined,
  base: ResolvedSecureHeaders | null,
  frameOptions: "SAMEORIGIN" | "DENY" | null,
  where: string,
): ResolvedSecureHeaders["contentSecurityPolicy"] {
  if (value === false) return null;
  if (value !== undefined && (typeof value !== "object" || value === null)) {
    throw new TypeError(
      `${where}.contentSecurityPolicy must be false or { directives, useDefaults, reportOnly }`,
    );
  }
  const inherited = base?.contentSecurityPolicy;
  if (value === undefined && base !== null && inherited === null) return null;
  const directives = new Map<string, readonly string[]>();
  const useDefaults = value?.useDefaults ?? true;
  if (inherited) for (const [name, sources] of inherited.directives) directives.set(name, sources);
  else if (useDefaults) {
    for (const [name, sources] of DEFAULT_DIRECTIVES) directives.set(name, sources);
    if (frameOptions !== null)
      directives.set("frame-ancestors", [frameOptions === "DENY" ? "'none'" : "'self'"]);
  }
  for (const [key, sources] of Object.entries(value?.directives ?? {})) {
    const name = key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    if (!DIRECTIVE_NAME.test(name)) throw new TypeError(`${where}: '${key}' is not a CSP directive name`);
    if (sources === false) {
      directives.delete(name);
      continue;
    }
    if (!Array.isArray(sources))
      throw new TypeError(`${where}: CSP directive '${key}' must be a list or false`);
    for (const source of sources) {
      if (typeof source !== "string" || !SOURCE.test(source)) {
        throw new TypeError(
          `${where}: CSP directive '${key}' has an invalid source ${JSON.stringify(source)}`,
        );
      }
    }
    directives.set(name, [...sources]);
  }
  return { directives, reportOnly: value?.reportOnly ?? inherited?.reportOnly ?? false };
}

function permissions(
  value: Record<string, PermissionAllowList> | false | undefined,
  base: ResolvedSecureHeaders | null,
  where: string,
): string | null {
  if (value === undefined && base !== null) return base.permissionsPolicy;
  if (value === false) return null;
  const features = value ?? DEFAULT_PERMISSIONS;
  if (typeof features !== "object" || features === null) {
    throw new TypeError(`${where}.permissionsPolicy must be false or an object of features`);
  }
  const parts: string[] = [];
  for (const [feature, allow] of Object.entries(features)) {
    const name = feature.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    if (!FEATURE_NAME.test(name))
      throw new TypeError(`${where}: '${feature}' is not a Permissions-Policy feature`);
    parts.push(`${name}=${allowList(allow, name, where)}`);
  }
  return parts.length === 0 ? null : parts.join(", ");
}

/** One feature's allow-list as a structured-field inner list (RFC 8941), as `Permissions-Policy` wants. */
function allowList(allow: PermissionAllowList, name: string, where: string): string {
  if (allow === "*") return "*";
  if (allow === "self") return "self";
  if (!Array.isArray(allow))
    throw new TypeError(`${where}: permissionsPolicy.${name} must be [], "self", "*" or a list`);
  const items = allow.map((item) => {
    if (item === "self") return "self";
    if (typeof item !== "string" || !ORIGIN.test(item)) {
      throw new TypeError(
        `${where}: permissionsPolicy.${name}: ${JSON.stringify(item)} is not "self" or an origin`,
      );
    }
    return `"${item}"`;
  });
  return `(${items.join(" ")})`;
}
