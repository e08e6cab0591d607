import { slidingAllows, slidingHit } from "./sliding.ts";
import type { Hit, RateLimitStore } from "./store.ts";

export interface MemoryStoreOptions {
  /**
   * Most keys kept at once (default 100 000). Expired windows are swept on a timer, so the store
   * holds the clients of the last window or two; past `maxKeys` (a flood of distinct clients within
   * one window) the oldest windows are dropped: bounded memory, at worst a client starting a fresh
   * window early (docs/security.md#rate-limit-memory).
   */
  maxKeys?: number;
}

/** What both kinds of window have: the sweep reads only these. */
interface Entry {
  /** `Date.now()` when the window started. */
  startedAt: number;
  /** `Date.now()` from which the entry counts for nothing and may go. */
  expiresAt: number;
}

/** A fixed window: `expiresAt` is when it ends. */
interface FixedWindow extends Entry {
  count: number;
}

/** A sliding window counter: this window's count and the previous one's; it weighs nothing two windows on. */
interface SlidingWindow extends Entry {
  windowMs: number;
  previous: number;
  current: number;
}

/** Sweeps are at least this far apart, however short the windows: a sweep is one timer callback. */
const MIN_SWEEP_MS = 100;

/**
 * Counters in this process's memory: exact, synchronous, and only right for one process
 * (`--processes N` gives each process its own counts: use `RedisStore` there). Both maps are in
 * window-start order (a window is inserted when it starts), so a sweep walks from the oldest and
 * stops at the first window too young to have ended: it costs what it removes, not the store's size.
 */
export class MemoryStore implements RateLimitStore {
  private readonly fixed = new Map<string, FixedWindow>();
  private readonly sliding = new Map<string, SlidingWindow>();
  private readonly maxKeys: number;
  /** The shortest span (start to expiry) of any entry of each map: no younger entry can have expired. */
  private shortestFixed = Number.POSITIVE_INFINITY;
  private shortestSliding = Number.POSITIVE_INFINITY;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** `Date.now()` of the planned sweep; +∞ when none is planned (the store is empty). */
  private sweepAt = Number.POSITIVE_INFINITY;
  private readonly sweepNow = () => {
    this.timer = null;
    this.sweepAt = Number.POSITIVE_INFINITY;
    this.sweep(Date.now());
  };

  constructor(options: MemoryStoreOptions = {}) {
    const maxKeys = options.maxKeys ?? 100_000;
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1)
      throw new RangeError("maxKeys must be a positive integer");
    this.maxKeys = maxKeys;
  }

  hit(key: string, windowMs: number): Hit {
    const now = Date.now();
    let window = this.fixed.get(key);
    if (window === undefined || window.expiresAt <= now) {
      if (window !== undefined) this.fixed.delete(key);
      else if (this.size >= this.maxKeys) this.makeRoom(now);
      window = { count: 0, startedAt: now, expiresAt: now + windowMs };
      // Re-inserted at the end: the map stays in window-start order, which the sweep relies on.
      this.fixed.set(key, window);
      if (windowMs < this.shortestFixed) this.shortestFixed = windowMs;
      // A window that ends before the planned sweep (a shorter one than any so far) moves it earlier.
      if (window.expiresAt + MIN_SWEEP_MS < this.sweepAt) this.schedule(now);
    }
    window.count++;
    return { count: window.count, resetMs: window.expiresAt - now };
  }

  hitSliding(key: string, windowMs: number, limit: number): Hit {
    const now = Date.now();
    let window = this.sliding.get(key);
    if (window === undefined || window.expiresAt <= now) {
      if (window !== undefined) this.sliding.delete(key);
      else if (this.size >= this.maxKeys) this.makeRoom(now);
      window = { windowMs, previous: 0, current: 0, startedAt: now, expiresAt: now + 2 * windowMs };
      this.sliding.set(key, window);
      if (2 * windowMs < this.shortestSliding) this.shortestSliding = 2 * windowMs;
      if (window.expiresAt + MIN_SWEEP_MS < this.sweepAt) this.schedule(now);
    } else if (now - window.startedAt >= window.windowMs) {
      // The next window of the key's own grid (less than two windows on, else it expired above):
      // this window's count becomes the previous one. Moved to the end to keep start order.
      window.previous = window.current;
      window.current = 0;
      window.startedAt += window.windowMs;
      window.expiresAt = window.startedAt + 2 * window.windowMs;
      this.sliding.delete(key);
      this.sliding.set(key, window);
    }
    const elapsed = now - window.startedAt;
    const allowed = slidingAllows(window.previous, window.current, elapsed, window.windowMs, limit);
    if (allowed) window.current++;
    return slidingHit(allowed, window.previous, window.current, elapsed, window.windowMs, limit);
  }

  /** Keys counted now, fixed and sliding (for tests and metrics). */
  get size(): number {
    return this.fixed.size + this.sliding.size;
  }

  close(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.sweepAt = Number.POSITIVE_INFINITY;
    this.fixed.clear();
    this.sliding.clear();
  }

  /**
   * Removes the windows that have ended, then plans the next sweep while any window is left: at the
   * oldest window's end, but no later than the shortest window (a younger, shorter window may end
   * first) and no sooner than MIN_SWEEP_MS. An ended window stays at most one window (or
   * MIN_SWEEP_MS) past its end.
   */
  private sweep(now: number): void {
    sweepOrdered(this.fixed, now, this.shortestFixed);
    sweepOrdered(this.sliding, now, this.shortestSliding);
    if (this.size > 0) this.schedule(now);
  }

  private schedule(now: number): void {
    let at = Math.min(now + this.shortestFixed, now + this.shortestSliding);
    for (const oldest of [firstOf(this.fixed), firstOf(this.sliding)]) {
      if (oldest !== undefined && oldest.expiresAt < at) at = oldest.expiresAt;
    }
    if (this.timer !== null) clearTimeout(this.timer);
    const delay = Math.max(MIN_SWEEP_MS, at - now);
    this.sweepAt = now + delay;
    this.timer = setTimeout(this.sweepNow, delay);
    // Never what keeps the process alive.
    this.timer.unref();
  }

  /** Full: drop every ended window (a full pass), and if that is not enough the oldest tenth of each map. */
  private makeRoom(now: number): void {
    for (const map of [this.fixed, this.sliding] as Map<string, Entry>[]) {
      for (const [key, entry] of map) if (entry.expiresAt <= now) map.delete(key);
    }
    if (this.size < this.maxKeys) return;
    for (const map of [this.fixed, this.sliding] as Map<string, Entry>[]) {
      // At once, so that this pass is rare.
      let drop = Math.ceil(map.size / 10);
      for (const key of map.keys()) {
        if (drop-- === 0) break;
        map.delete(key);
      }
    }
  }
}

/**
 * Deletes the ended entries of a map in start order, stopping at the first entry younger than
 * `shortest` (it and every later one cannot have ended yet). A live long window ahead of shorter
 * ones is stepped over.
 */
function sweepOrdered(map: Map<string, Entry>, now: number, shortest: number): void {
  const youngest = now - shortest;
  for (const [key, entry] of map) {
    if (entry.expiresAt <= now) map.delete(key);
    else if (entry.startedAt > youngest) break;
  }
}

function firstOf(map: Map<string, Entry>): Entry | undefined {
  for (const entry of map.values()) return entry;
  return undefined;
}
