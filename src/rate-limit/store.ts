/** Where rate-limit counters live: one process's memory, or Redis shared by every process and machine. */

/** One counted request: the count in the current window (this request included) and when more quota comes. */
export interface Hit {
  /** Fixed windows: the count, this request included. Sliding: the weighted count rounded up, `limit + 1` when refused. */
  count: number;
  /**
   * Fixed windows: milliseconds until the window ends and the count starts again from 0. Sliding:
   * until more quota is made available (one request fits again, or one more remains).
   */
  resetMs: number;
}

/**
 * A counter store. `hit` counts one request for `key` in a fixed window of
 * `windowMs` that starts with the key's first request, atomically; it may
 * answer synchronously (memory) or not (Redis). A store that cannot answer
 * throws or rejects: the limit's `onStoreError` decides what the request gets.
 */
export interface RateLimitStore {
  hit(key: string, windowMs: number): Hit | Promise<Hit>;
  /**
   * `algorithm: "sliding"` (docs/rate-limiting.md#algorithms): decides atomically whether one more
   * request for `key` fits under `limit` in the sliding window of `windowMs`, and counts it only
   * then (src/rate-limit/sliding.ts has the arithmetic). Optional: a limit with the sliding
   * algorithm refuses to start on a store without it.
   */
  hitSliding?(key: string, windowMs: number, limit: number): Hit | Promise<Hit>;
  /** Called when the server stops (connections, timers). */
  close?(): void | Promise<void>;
}

/** The store's `hitSliding`, bound, for a limit with `algorithm: "sliding"`; a store without it cannot serve one. */
export function slidingHitOf(
  store: RateLimitStore,
): (key: string, windowMs: number, limit: number) => Hit | Promise<Hit> {
  const hitSliding = store.hitSliding;
  if (typeof hitSliding !== "function") {
    throw new TypeError('rateLimit: algorithm "sliding" needs a store with hitSliding()');
  }
  return hitSliding.bind(store);
}
