/**
 * `app.rateLimit(…)`, `router.rateLimit(…)` and the route option `rateLimit`
 * (docs/rate-limiting.md): what a user declares, and how a route's effective
 * limit is resolved from its declaration and the ones around it.
 */
import type { Request } from "../http/request.ts";
import type { RateLimitStore } from "./store.ts";

/** Who is counted: the client's address, the authenticated identity, or a key of the app's making. */
export type RateLimitKey = "ip" | "identity" | RateLimitKeyFunction;

/**
 * Makes the counting key of a request (before its body is read and before middlewares run: headers,
 * query, path params, `ipAddr`). `null`/`undefined`: this request is not limited. Throwing an
 * `HttpError` answers with it; anything else thrown is a 500, logged with the request id.
 */
export type RateLimitKeyFunction = (
  request: Request,
) => string | null | undefined | Promise<string | null | undefined>;

/**
 * How requests are counted (docs/rate-limiting.md#algorithms): `"fixed"` windows that start with a
 * key's first request (exact and cheapest, but up to 2 × `limit` can pass across a window's end),
 * or a `"sliding"` window counter (the previous window's count weighted by its share of the last
 * `windowMs`: a burst across a window's end gets about `limit`, not 2 ×).
 */
export type RateLimitAlgorithm = "fixed" | "sliding";

export interface RateLimitOptions {
  /** Requests allowed per window and key. */
  limit?: number;
  /** The window's length in milliseconds (a window that starts with the key's first request). */
  windowMs?: number;
  /** Default `"fixed"`. */
  algorithm?: RateLimitAlgorithm;
  /** Default `"ip"`. */
  key?: RateLimitKey;
  /** Default: one in-memory store per app (one process). `new RedisStore({ url })` to share across processes. */
  store?: RateLimitStore;
  /**
   * The `"ip"` key counts an IPv6 client by the first this-many bits of its address (one household or
   * server usually holds a whole /64); `false`: each address apart. Default 64. The client's address
   * itself (app option `trustProxy`, docs/client-address.md) is the same for every reader.
   */
  ipv6Subnet?: number | false;
  /** The policy's name in the `RateLimit-Policy`/`RateLimit` headers and its counters' namespace. */
  name?: string;
  /** The store fails (Redis unreachable, timeout): `"allow"` (default) serves the request unlimited; `"deny"` answers 503. */
  onStoreError?: "allow" | "deny";
}

/** A declaration: options, or `false` to turn an outer limit off. */
export type RateLimitSetting = RateLimitOptions | false;

export interface ResolvedRateLimit {
  limit: number;
  windowMs: number;
  algorithm: RateLimitAlgorithm;
  key: RateLimitKey;
  store: RateLimitStore | null;
  /** Prefix length of the `"ip"` key for IPv6 clients; 128: the whole address. */
  ipv6Subnet: number;
  name: string;
  onStoreError: "allow" | "deny";
}

/** A declaration with where it was made: the innermost wins, missing fields come from the ones around it. */
export interface PlacedSetting {
  setting: RateLimitSetting;
  /** Default policy name: `app`, the router's prefix, `GET /path`. */
  where: string;
}

/**
 * The effective limit of a route: its declarations from the outermost (app) to the innermost (the
 * route's own option); `null` when none applies or the innermost is `false`.
 */
export function resolveRateLimit(declarations: PlacedSetting[], label: string): ResolvedRateLimit | null {
  let merged: RateLimitOptions | null = null;
  let where = "";
  for (const { setting, where: at } of declarations) {
    if (setting === false) {
      merged = null;
      continue;
    }
    // Fields a nested declaration leaves out come from the enclosing one, except its name: a nested
    // declaration is its own policy with its own counters.
    merged = { ...(merged ?? {}), name: undefined, ...stripUndefined(setting) };
    where = at;
  }
  if (merged === null) return null;
  if ("trustProxy" in merged) checkRateLimitSetting(merged, label);
  const { limit, windowMs } = merged;
  if (!Number.isSafeInteger(limit) || (limit as number) < 1) {
    throw new RangeError(`rateLimit of ${label}: limit must be a positive integer, got ${String(limit)}`);
  }
  if (!Number.isSafeInteger(windowMs) || (windowMs as number) < 1) {
    throw new RangeError(
      `rateLimit of ${label}: windowMs must be a positive integer, got ${String(windowMs)}`,
    );
  }
  const key = merged.key ?? "ip";
  if (key !== "ip" && key !== "identity" && typeof key !== "function") {
    throw new TypeError(`rateLimit of ${label}: key must be "ip", "identity" or a function`);
  }
  const algorithm = merged.algorithm ?? "fixed";
  if (algorithm !== "fixed" && algorithm !== "sliding") {
    throw new TypeError(`rateLimit of ${label}: algorithm must be "fixed" or "sliding"`);
  }
  if (algorithm === "sliding" && merged.store && typeof merged.store.hitSliding !== "function") {
    throw new TypeError(`rateLimit of ${label}: algorithm "sliding" needs a store with hitSliding()`);
  }
  const onStoreError = merged.onStoreError ?? "allow";
  if (onStoreError !== "allow" && onStoreError !== "deny") {
    throw new TypeError(`rateLimit of ${label}: onStoreError must be "allow" or "deny"`);
  }
  const subnet = merged.ipv6Subnet ?? 64;
  if (subnet !== false && (!Number.isInteger(subnet) || subnet < 1 || subnet > 128)) {
    throw new RangeError(
      `rateLimit of ${label}: ipv6Subnet must be a prefix length from 1 to 128 or false, got ${String(subnet)}`,
    );
  }
  const name = merged.name ?? where;
  if (!/^[\x20-\x7e]+$/.test(name)) {
    throw new TypeError(`rateLimit of ${label}: name must be printable ASCII, got ${JSON.stringify(name)}`);
  }
  return {
    limit: limit as number,
    windowMs: windowMs as number,
    algorithm,
    key,
    store: merged.store ?? null,
    ipv6Subnet: subnet === false ? 128 : subnet,
    name,
    onStoreError,
  };
}

/** Checks a declaration when it is made (types the compiler cannot see, e.g. from JavaScript). */
export function checkRateLimitSetting(setting: unknown, where: string): RateLimitSetting {
  if (setting === false) return false;
  if (typeof setting !== "object" || setting === null || Array.isArray(setting)) {
    throw new TypeError(`rateLimit of ${where} must be an options object or false`);
  }
  if ("trustProxy" in setting) {
    // Moved to the app (one source of the client's address for every reader): say where, not ignore it.
    throw new TypeError(
      `rateLimit of ${where}: trustProxy is now an app option, new Webfw(path, { trustProxy }) (docs/client-address.md)`,
    );
  }
  return setting as RateLimitOptions;
}

function stripUndefined(options: RateLimitOptions): RateLimitOptions {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(options)) if (value !== undefined) out[name] = value;
  return out as RateLimitOptions;
}
