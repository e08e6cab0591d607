import type { Hit, RateLimitStore } from "./store.ts";

export interface MemoryStoreOptions {
  /**
   * Most keys kept at once (default 100 000). Past it, expired windows are
   * dropped, then the oldest: a flood of distinct clients costs bounded memory
   * (and at worst lets a long-quiet client start a fresh window).
   */
  maxKeys?: number;
}

interface Window {
  count: number;
  /** `Date.now()` when the window ends. */
  resetAt: number;
}

/**
 * Fixed windows in this process's memory: exact, synchronous, and only right
 * for one process (`--processes N` gives each process its own counts: use
 * `RedisStore` there).
 */
export class MemoryStore implements RateLimitStore {
  private readonly windows = new Map<string, Window>();
  private readonly maxKeys: number;

  constructor(options: MemoryStoreOptions = {}) {
    const maxKeys = options.maxKeys ?? 100_000;
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1)
      throw new RangeError("maxKeys must be a positive integer");
    this.maxKeys = maxKeys;
  }

  hit(key: string, windowMs: number): Hit {
    const now = Date.now();
    let window = this.windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      if (window !== undefined) this.windows.delete(key);
      else if (this.windows.size >= this.maxKeys) this.makeRoom(now);
      window = { count: 0, resetAt: now + windowMs };
      // Re-inserted at the end: Map order stays oldest window first, which makeRoom relies on.
      this.windows.set(key, window);
    }
    window.count++;
    return { count: window.count, resetMs: window.resetAt - now };
  }

  /** Keys counted now (for tests and metrics). */
  get size(): number {
    return this.windows.size;
  }

  close(): void {
    this.windows.clear();
  }

  private makeRoom(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    // Still full of live windows: drop the oldest tenth at once, so this sweep is rare.
    if (this.windows.size >= this.maxKeys) {
      let drop = Math.max(1, Math.floor(this.maxKeys / 10));
      for (const key of this.windows.keys()) {
        this.windows.delete(key);
        if (--drop === 0) break;
      }
    }
  }
}
