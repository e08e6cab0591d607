/**
 * `GET /metrics` (or the path `metrics.path` names): the Prometheus text
 * exposition of this process, or, in a supervised process (`--processes N`),
 * of the whole server, gathered through the supervisor
 * (src/observability/metrics-relay.ts) and added up.
 */
import type { MetricObjectWithValues, MetricValue } from "prom-client";
import type { RouteRecord } from "../router/route.ts";
import type { HttpMetrics } from "./metrics.ts";
import type { MetricsClusterLink } from "./metrics-relay.ts";

type Snapshot = MetricObjectWithValues<MetricValue<string>>[];

/**
 * The scrape route, for the build step to compile beside the app's own (as
 * the OpenAPI routes are); none when the app registered a GET on that path itself.
 */
export function metricsRoutes(
  metrics: HttpMetrics,
  link: MetricsClusterLink | null,
  taken: Set<string>,
): RouteRecord[] {
  const path = metrics.options.path;
  if (taken.has(path)) return [];
  const handler = async () => {
    const gathered = link ? await link.collect() : null;
    // Without a supervisor answer (none, or it timed out), this process's own figures are still the truth for it.
    const text = await metrics.exposition(gathered ? (gathered as Snapshot[]) : undefined);
    return new globalThis.Response(text, {
      headers: { "content-type": metrics.contentType, "cache-control": "no-store" },
    });
  };
  return [{ method: "GET", path, handler, options: { includeInSchema: false } }];
}
