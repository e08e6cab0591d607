/** Where rate-limit counters live: one process's memory, or Redis shared by every process and machine. */

/** One counted request: the count in the current window (this request included) and when it ends. */
export interface Hit {
  count: number;
  /** Milliseconds until the window ends and the count starts again from 0. */
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
  /** Called when the server stops (connections, timers). */
  close?(): void | Promise<void>;
}
