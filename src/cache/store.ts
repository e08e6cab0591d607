/**
 * What a response cache store keeps (docs/caching.md#stores): one answer per key with its tags,
 * and what the cache asks of a store. `MemoryCacheStore` keeps them in the process,
 * `RedisCacheStore` in Redis, shared by every process and machine; any object with these methods
 * is a store.
 */

/** One stored answer. */
export interface CacheEntry {
  status: number;
  /** The answer's headers as stored (ETag, Cache-Control and Vary included); never `Set-Cookie`. */
  headers: [string, string][];
  body: Uint8Array;
  /** `Date.now()` when it was made. */
  storedAt: number;
  /** Fresh for this many ms after `storedAt`… */
  ttl: number;
  /** …then served stale for this many more while it is refreshed. */
  staleWhileRevalidate: number;
  /** Its tags, the key's own tag included (src/cache/keys.ts). */
  tags: string[];
}

export interface CacheStore {
  /** `true` when every process sees the same entries (Redis): invalidations are then done once, there. */
  readonly shared: boolean;
  get(key: string): CacheEntry | null | Promise<CacheEntry | null>;
  /** Keeps `entry` for `ttl + staleWhileRevalidate` ms, indexed by its tags. */
  set(key: string, entry: CacheEntry): void | Promise<void>;
  /** Drops every entry carrying one of `tags`; returns how many. */
  invalidate(tags: string[]): number | Promise<number>;
  /**
   * Takes the key's computation lock for `ms` when nobody holds it: a token to `unlock` with, or
   * null. Shared stores have one so that one process and machine computes a key at a time.
   */
  lock?(key: string, ms: number): Promise<string | null>;
  unlock?(key: string, token: string): Promise<void>;
  /** Whether someone holds the key's computation lock. */
  locked?(key: string): Promise<boolean>;
  close?(): void | Promise<void>;
}

/** The size an entry counts for in a store bounded by bytes. */
export function entryBytes(key: string, entry: CacheEntry): number {
  let bytes = entry.body.byteLength + key.length * 2 + 64;
  for (const [name, value] of entry.headers) bytes += (name.length + value.length) * 2;
  for (const tag of entry.tags) bytes += tag.length * 4;
  return bytes;
}
