/**
 * The route option `cacheResponses` and `router.cacheResponses(…)` (docs/caching.md): what a user declares,
 * its checks, and how a route's setting is resolved from its own and its routers'.
 */
import type { Request } from "../http/request.ts";
import { isToken } from "../http/token.ts";

/** Makes the part of the cache key that names the resource; it must include the identity when the answer depends on it. */
export type CacheKeyFunction = (request: Request) => string | Promise<string>;

export interface CacheOptions {
  /** Milliseconds an answer is served fresh. */
  ttl: number;
  /** Milliseconds after `ttl` during which the stale answer is still served while one refresh runs (default 0). */
  staleWhileRevalidate?: number;
  /**
   * The resource's key (default: the path with its query string). Runs after authentication, so it
   * can read `request.identity`. Answers to requests with credentials are cached only under a key function.
   */
  key?: CacheKeyFunction;
  /** Request headers whose values are part of the key (`accept-language`, …); names the answer's `Vary` too. */
  vary?: string[];
  /** Tags for `app.cache.invalidate({ tags })`: a list, or made from the request. */
  tags?: string[] | ((request: Request) => string[]);
}

/** A declaration: options, or `false` to turn an outer one off. */
export type CacheSetting = CacheOptions | false;

export interface ResolvedCache {
  ttl: number;
  staleWhileRevalidate: number;
  key: CacheKeyFunction | null;
  /** Lower-case header names, sorted. */
  vary: string[];
  tags: string[] | ((request: Request) => string[]);
}

const KNOWN = new Set(["ttl", "staleWhileRevalidate", "key", "vary", "tags"]);

/** Checks a declaration where it is made; the error names the place. */
export function checkCacheSetting(setting: unknown, where: string): CacheSetting {
  if (setting === false) return false;
  if (typeof setting !== "object" || setting === null || Array.isArray(setting))
    throw new TypeError(`cache of ${where} must be { ttl, … } or false`);
  const options = setting as Record<string, unknown>;
  for (const name of Object.keys(options)) {
    if (!KNOWN.has(name)) throw new TypeError(`cache of ${where}: unknown option ${JSON.stringify(name)}`);
  }
  const { ttl, staleWhileRevalidate, key, vary, tags } = options;
  if (typeof ttl !== "number" || !Number.isSafeInteger(ttl) || ttl <= 0)
    throw new TypeError(`cache of ${where}: ttl must be a positive integer of milliseconds`);
  if (
    staleWhileRevalidate !== undefined &&
    (typeof staleWhileRevalidate !== "number" ||
      !Number.isSafeInteger(staleWhileRevalidate) ||
      staleWhileRevalidate < 0)
  )
    throw new TypeError(
      `cache of ${where}: staleWhileRevalidate must be a non-negative integer of milliseconds`,
    );
  if (key !== undefined && typeof key !== "function")
    throw new TypeError(`cache of ${where}: key must be a function of the request`);
  if (
    vary !== undefined &&
    (!Array.isArray(vary) || vary.some((name) => typeof name !== "string" || !isToken(name)))
  )
    throw new TypeError(`cache of ${where}: vary must be a list of header names`);
  if (
    tags !== undefined &&
    typeof tags !== "function" &&
    (!Array.isArray(tags) || tags.some((tag) => typeof tag !== "string" || tag === ""))
  )
    throw new TypeError(
      `cache of ${where}: tags must be a list of non-empty strings or a function of the request`,
    );
  return setting as CacheOptions;
}

/**
 * The nearest declaration wins whole (a route's over its routers', an inner router's over an outer
 * one's): a `ttl` is always given, so nothing is merged. `false` turns caching off there.
 */
export function resolveCache(declarations: CacheSetting[]): ResolvedCache | null {
  const nearest = declarations[declarations.length - 1];
  if (nearest === undefined || nearest === false) return null;
  return {
    ttl: nearest.ttl,
    staleWhileRevalidate: nearest.staleWhileRevalidate ?? 0,
    key: nearest.key ?? null,
    vary: [...new Set((nearest.vary ?? []).map((name) => name.toLowerCase()))].sort(),
    tags: nearest.tags ?? [],
  };
}
