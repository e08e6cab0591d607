/**
 * `app.cache` (docs/caching.md): the app's response cache store and `invalidate`. The store is the
 * app's `cacheStore` option, else a `RedisCacheStore` on `configureBroadcast`'s Redis, else a
 * `MemoryCacheStore`; made on first use, so an app that caches nothing loads neither. With a store
 * of its own per process (memory), an invalidation is also sent to every other process and machine
 * over Redis pub/sub when the app has `configureBroadcast` (src/cache/invalidation-relay.ts), else
 * to the other processes of `--processes` through their supervisor (src/cache/process-relay.ts).
 */

import type * as RedisRelayModule from "./invalidation-relay.ts";
import { invalidationTags } from "./keys.ts";
import type * as MemoryModule from "./memory-store.ts";
import { joinProcessRelay } from "./process-relay.ts";
import type * as RedisModule from "./redis-store.ts";
import type { CacheStore } from "./store.ts";

/** What `invalidate` drops: entries with any of `tags`, or those of one `key`. */
export type CacheInvalidation = { tags: string[]; key?: string } | { key: string; tags?: string[] };

export interface RedisSettings {
  redisUrl: string;
}

/** Where the invalidations of a per-process store go, and come from. */
interface Relay {
  publish(tags: string[]): void | Promise<void>;
  listen(drop: (tags: string[]) => unknown): void;
  close(): void;
}

export class ResponseCache {
  private made: CacheStore | null = null;
  private relay: Relay | null = null;

  constructor(
    private readonly configured: CacheStore | null,
    private readonly redis: () => RedisSettings | null,
  ) {
    if (configured !== null && !isStore(configured))
      throw new TypeError("cacheStore must have get, set and invalidate methods (docs/caching.md#stores)");
  }

  /** The app's store: the one given, else made on first use. */
  get store(): CacheStore {
    if (this.configured !== null) return this.configured;
    if (this.made === null) {
      const redis = this.redis();
      this.made =
        redis === null
          ? new (require("./memory-store.ts") as typeof MemoryModule).MemoryCacheStore()
          : new (require("./redis-store.ts") as typeof RedisModule).RedisCacheStore({ url: redis.redisUrl });
    }
    return this.made;
  }

  /**
   * Drops the cached answers carrying any of `tags`, or made under `key` (the key function's value,
   * else the path with its query), in every process and machine; resolves with how many this
   * process's store (or the shared one) held.
   */
  async invalidate(target: CacheInvalidation): Promise<number> {
    const tags = invalidationTags(target, "app.cache.invalidate");
    const store = this.store;
    const dropped = await store.invalidate(tags);
    if (!store.shared) await this.relayOf()?.publish(tags);
    return dropped;
  }

  /** @internal The build of an app with cached routes: hear other processes' invalidations. */
  listen(): void {
    if (!this.store.shared) this.relayOf()?.listen((tags) => this.store.invalidate(tags));
  }

  /**
   * @internal The server stops: the relay and the store's connections are closed (a Redis store
   * connects again on its next use, if the app is started again).
   */
  async close(): Promise<void> {
    this.relay?.close();
    this.relay = null;
    await (this.configured ?? this.made)?.close?.();
    this.made = null;
  }

  private relayOf(): Relay | null {
    if (this.relay !== null) return this.relay;
    const redis = this.redis();
    this.relay =
      redis === null
        ? joinProcessRelay()
        : new (require("./invalidation-relay.ts") as typeof RedisRelayModule).InvalidationRelay(
            redis.redisUrl,
          );
    return this.relay;
  }
}

function isStore(store: CacheStore): boolean {
  return (
    typeof store === "object" &&
    typeof store.get === "function" &&
    typeof store.set === "function" &&
    typeof store.invalidate === "function"
  );
}
