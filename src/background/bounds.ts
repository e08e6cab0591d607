/**
 * The app's bounds on background tasks (`new Webfw(path, { background })`,
 * docs/events.md#bounds): how many requests' tasks run at once in one thread, how many wait.
 */

export interface BackgroundBounds {
  /**
   * Requests whose tasks run at once in one thread (the main thread, and each Worker for offloaded
   * routes). A request's tasks run one after another, so they take one slot. Default 64.
   */
  maxConcurrent?: number;
  /**
   * Requests whose tasks wait for a slot; past it, the arriving request's tasks are dropped, logged
   * (throttled) and counted (`webfw_background_tasks_dropped_total`). Default 1000.
   */
  maxQueued?: number;
}

export type ResolvedBackgroundBounds = Required<BackgroundBounds>;

export const DEFAULT_BACKGROUND_CONCURRENT = 64;
export const DEFAULT_BACKGROUND_QUEUED = 1000;

export function resolveBackgroundBounds(given: BackgroundBounds = {}): ResolvedBackgroundBounds {
  const bounds = {
    maxConcurrent: given.maxConcurrent ?? DEFAULT_BACKGROUND_CONCURRENT,
    maxQueued: given.maxQueued ?? DEFAULT_BACKGROUND_QUEUED,
  };
  if (!Number.isSafeInteger(bounds.maxConcurrent) || bounds.maxConcurrent <= 0)
    throw new TypeError(
      `background.maxConcurrent must be a positive integer, got ${String(bounds.maxConcurrent)}`,
    );
  if (!Number.isSafeInteger(bounds.maxQueued) || bounds.maxQueued < 0)
    throw new TypeError(`background.maxQueued must be an integer >= 0, got ${String(bounds.maxQueued)}`);
  return bounds;
}
