/**
 * The in-process response cache store (docs/caching.md#stores): least recently used entries go
 * first once the entries' bytes pass `maxBytes`; an entry also goes when its stale period is over.
 * A tag index finds the entries `invalidate` drops. One per process: `--processes` and machines
 * each have their own (their invalidations travel through Redis, src/cache/response-cache.ts).
 */
import { type CacheEntry, type CacheStore, entryBytes } from "./store.ts";

export interface MemoryCacheStoreOptions {
  /** Bytes all entries may take together (bodies, headers, keys, tags); default 64 MiB. */
  maxBytes?: number;
}

interface Slot {
  entry: CacheEntry;
  bytes: number;
  /** `Date.now()` after which it is gone. */
  expires: number;
}

export class MemoryCacheStore implements CacheStore {
  readonly shared = false;
  readonly maxBytes: number;
  /** Insertion order is recency: a read moves the entry to the end, eviction takes from the start. */
  private readonly slots = new Map<string, Slot>();
  private readonly byTag = new Map<string, Set<string>>();
  private used = 0;

  constructor(options: MemoryCacheStoreOptions = {}) {
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    if (!Number.isSafeInteger(this.maxBytes) || this.maxBytes <= 0)
      throw new RangeError("maxBytes must be a positive integer");
  }

  /** Bytes the entries take now. */
  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.slots.size;
  }

  get(key: string): CacheEntry | null {
    const slot = this.slots.get(key);
    if (slot === undefined) return null;
    if (Date.now() >= slot.expires) {
      this.remove(key, slot);
      return null;
    }
    this.slots.delete(key);
    this.slots.set(key, slot);
    return slot.entry;
  }

  set(key: string, entry: CacheEntry): void {
    const old = this.slots.get(key);
    if (old !== undefined) this.remove(key, old);
    const bytes = entryBytes(key, entry);
    // An entry larger than the whole store is not kept (it would evict everything and then itself).
    if (bytes > this.maxBytes) return;
    this.slots.set(key, { entry, bytes, expires: entry.storedAt + entry.ttl + entry.staleWhileRevalidate });
    this.used += bytes;
    for (const tag of entry.tags) {
      let keys = this.byTag.get(tag);
      if (keys === undefined) {
        keys = new Set();
        this.byTag.set(tag, keys);
      }
      keys.add(key);
    }
    for (const [oldest, slot] of this.slots) {
      if (this.used <= this.maxBytes) break;
      this.remove(oldest, slot);
    }
  }

  invalidate(tags: string[]): number {
    let dropped = 0;
    for (const tag of tags) {
      const keys = this.byTag.get(tag);
      if (keys === undefined) continue;
      for (const key of [...keys]) {
        const slot = this.slots.get(key);
        if (slot !== undefined) {
          this.remove(key, slot);
          dropped++;
        }
      }
      this.byTag.delete(tag);
    }
    return dropped;
  }

  close(): void {
    this.slots.clear();
    this.byTag.clear();
    this.used = 0;
  }

  private remove(key: string, slot: Slot): void {
    this.slots.delete(key);
    this.used -= slot.bytes;
    for (const tag of slot.entry.tags) {
      const keys = this.byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.byTag.delete(tag);
    }
  }
}
