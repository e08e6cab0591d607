/** `webfw/rate-limit`: the stores behind the `rateLimit` option, and its types (docs/rate-limiting.md). */
export { MemoryStore, type MemoryStoreOptions } from "../rate-limit/memory-store.ts";
export type {
  RateLimitAlgorithm,
  RateLimitKey,
  RateLimitKeyFunction,
  RateLimitOptions,
} from "../rate-limit/options.ts";
export { RedisStore, RedisStoreError, type RedisStoreOptions } from "../rate-limit/redis-store.ts";
export type { Hit, RateLimitStore } from "../rate-limit/store.ts";
