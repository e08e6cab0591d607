/** `webfw/observability`: metrics, request IDs and Server-Timing (docs/observability.md, docs/request-ids.md). */
export type { MetricsOptions, ResolvedMetricsOptions } from "../observability/metrics-options.ts";
export type { RequestIdOptions, ResolvedRequestIdOptions } from "../request-id/options.ts";
export { timed, timing } from "../server-timing/index.ts";
