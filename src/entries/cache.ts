/** `webfw/cache`: the response cache's stores and types (docs/caching.md). */
export { MemoryCacheStore, type MemoryCacheStoreOptions } from "../cache/memory-store.ts";
export type { CacheKeyFunction, CacheOptions, CacheSetting } from "../cache/options.ts";
export {
  RedisCacheStore,
  RedisCacheStoreError,
  type RedisCacheStoreOptions,
} from "../cache/redis-store.ts";
export type { CacheInvalidation, RedisSettings, ResponseCache } from "../cache/response-cache.ts";
export type { CacheEntry, CacheStore } from "../cache/store.ts";
