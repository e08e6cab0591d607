/**
 * The warning a failing rate-limit store logs (docs/rate-limiting.md#when-redis-goes-away): at most
 * once per 10 s per store, whatever number of routes, methods, policies and builds use it (every
 * route under `app.rateLimit` has its own layer, so a throttle per layer let an outage log once per
 * route at the same instant). The next warning says how many failures it did not log.
 */
import { logger } from "../log/logger.ts";
import type { RateLimitStore } from "./store.ts";

/** How often one store's failures may be logged. */
export const STORE_WARNING_MS = 10_000;

interface Throttle {
  /** `performance.now()` of the last warning. */
  at: number;
  /** Failures since then that were not logged. */
  unlogged: number;
}

// Keyed by the store object: the same store in a rebuilt app (a restart, another test) is one throttle.
const throttles = new WeakMap<RateLimitStore, Throttle>();

export function warnStoreFailed(
  store: RateLimitStore,
  fields: { policy: string; on_store_error: string; request_id: string | undefined; error: unknown },
): void {
  const now = performance.now();
  const throttle = throttles.get(store);
  if (throttle !== undefined && now - throttle.at < STORE_WARNING_MS) {
    throttle.unlogged++;
    return;
  }
  const unlogged = throttle?.unlogged ?? 0;
  throttles.set(store, { at: now, unlogged: 0 });
  const { error, ...rest } = fields;
  logger.warning("rate limit store failed", {
    ...rest,
    error: (error as Error)?.message ?? String(error),
    ...(unlogged > 0 ? { failures_not_logged: unlogged } : {}),
  });
}
