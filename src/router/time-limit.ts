/**
 * One name for a handler's time limit at every level (docs/options.md#time-limits): the route's
 * `timeoutMs`, else the nearest router's, else the app's (the app is the outermost router).
 */
import type { RouterBase } from "./router-base.ts";

/** The limit in ms (0: none) of a route whose own `timeoutMs` is `routeTimeoutMs`, under `chain` (outermost first). */
export function timeLimitOf(chain: readonly RouterBase[], routeTimeoutMs: number | undefined): number {
  if (routeTimeoutMs !== undefined) return routeTimeoutMs;
  for (let index = chain.length - 1; index >= 0; index--) {
    const setting = chain[index]?.timeoutSetting;
    if (setting !== undefined) return setting;
  }
  return 0;
}
