/**
 * The sliding window counter (`algorithm: "sliding"`, docs/rate-limiting.md#algorithms): per key
 * the count of the current window and of the previous one; a request is allowed when the previous
 * count, weighted by the share of the previous window still inside the sliding window, plus the
 * current count plus this request is at most the limit. Both stores decide with `slidingAllows`
 * (the Redis store's Lua script does the same arithmetic) and answer with `slidingHit`, so the two
 * agree to the millisecond. Everything is integer arithmetic: no rounding differs between them.
 */
import type { Hit } from "./store.ts";

/**
 * Is one more request allowed? `elapsed`: milliseconds since the current window started (< `windowMs`).
 * `previous × (windowMs − elapsed) / windowMs + current + 1 ≤ limit`, multiplied out by `windowMs`.
 */
export function slidingAllows(
  previous: number,
  current: number,
  elapsed: number,
  windowMs: number,
  limit: number,
): boolean {
  return previous * (windowMs - elapsed) + (current + 1) * windowMs <= limit * windowMs;
}

/**
 * The answer of a sliding hit, from the state after it (`current` includes this request when it
 * was allowed). `count`: the weighted count rounded up (so `limit − count` is what remains, rounded
 * down), `limit + 1` when refused. `resetMs`: when more quota is made available (the RateLimit
 * draft's `t` for sliding windows): for a refusal, until one request fits again (`Retry-After`);
 * for an allowed request, until the remaining count grows by one.
 */
export function slidingHit(
  allowed: boolean,
  previous: number,
  current: number,
  elapsed: number,
  windowMs: number,
  limit: number,
): Hit {
  // Scaled by windowMs: the weighted count is weighted / windowMs.
  const weighted = previous * (windowMs - elapsed) + current * windowMs;
  if (!allowed) {
    return {
      count: limit + 1,
      resetMs: untilWeightedAtMost(limit - 1, previous, current, elapsed, windowMs),
    };
  }
  const count = Math.ceil(weighted / windowMs);
  return { count, resetMs: untilWeightedAtMost(count - 1, previous, current, elapsed, windowMs) };
}

/**
 * Milliseconds until the weighted count drops to `target` or below, if no request comes meanwhile:
 * within this window while the previous count's weight fades, else in the next one (where this
 * window's count becomes the previous one). `target` ≥ 0.
 */
function untilWeightedAtMost(
  target: number,
  previous: number,
  current: number,
  elapsed: number,
  windowMs: number,
): number {
  if (current <= target) {
    if (previous === 0) return 0;
    // previous × (windowMs − τ) / windowMs + current ≤ target  ⇔  τ ≥ windowMs − windowMs × (target − current) / previous
    const at = Math.ceil(windowMs - (windowMs * (target - current)) / previous);
    return Math.max(0, at - elapsed);
  }
  // Next window: current × (windowMs − σ) / windowMs ≤ target  ⇔  σ ≥ windowMs − windowMs × target / current
  return windowMs - elapsed + Math.ceil(windowMs - (windowMs * target) / current);
}
