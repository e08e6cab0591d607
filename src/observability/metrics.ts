/**
 * Prometheus metrics (docs/observability.md) with `prom-client`: the Prometheus
 * project's reference client for Node-compatible runtimes, maintained under
 * siimon/prom-client, with the text exposition format, histograms, default
 * process metrics (that work on Bun) and, what decided it, an aggregator for
 * several processes' registries (`AggregatorRegistry.aggregate`), which
 * `--processes` needs. It is imported only when metrics are on.
 *
 * Series (docs/observability.md says what each means):
 *   http_server_request_duration_seconds{method,route,status}  histogram
 *   http_server_active_requests                                 gauge
 *   webfw_websocket_connections                                 gauge
 *   webfw_worker_pool_workers / _busy_workers / _queued_calls   gauges
 *   webfw_metrics_processes                                     gauge (processes in this scrape)
 *   webfw_background_tasks_* and webfw_uploads_*                the bounds (./bounds-metrics.ts)
 *   webfw_jobs_total, webfw_job_duration_*, webfw_cron_runs_total  jobs and cron (./job-metrics.ts)
 *   process_* and nodejs_*                                      prom-client's default metrics
 */
import type { Gauge, Metric, MetricObjectWithValues, MetricValue, Registry } from "prom-client";
import { registerBoundsMetrics, type UploadStats } from "./bounds-metrics.ts";
import { FastHistogram, type Series } from "./fast-histogram.ts";
import { conventionalMethod } from "./http-attributes.ts";
import { registerJobMetrics } from "./job-metrics.ts";
import type { ResolvedMetricsOptions } from "./metrics-options.ts";
import type { Dispatcher, DispatcherWrap, RouteInfo } from "./route-info.ts";

/** What the metrics read from the running server when scraped. */
export interface MetricSources {
  workerPool?: () => { queued: number; busy: number; size: number } | null;
  websocketConnections?: () => number;
  /** The app's upload gate (src/uploads/gate.ts), when it has streamed-upload routes. */
  uploads?: () => UploadStats;
}

/** The app's metrics in one process: the registry and the per-request layer. */
export interface HttpMetrics {
  readonly registry: Registry;
  readonly options: ResolvedMetricsOptions;
  /** The layer that times every request of the route it wraps. */
  readonly wrap: DispatcherWrap;
  /** Later sources (the WebSocket runtime exists only after the routes are built). */
  readonly sources: MetricSources;
  /** This process's metrics, as JSON (what other processes send for an aggregated scrape). */
  snapshot(): Promise<MetricObjectWithValues<MetricValue<string>>[]>;
  /** The exposition text of this process, or of several processes' snapshots added up. */
  exposition(snapshots?: MetricObjectWithValues<MetricValue<string>>[][]): Promise<string>;
  readonly contentType: string;
}

type Prom = typeof import("prom-client");

export async function createHttpMetrics(options: ResolvedMetricsOptions): Promise<HttpMetrics> {
  const prom: Prom = await import("prom-client");
  // Its own registry, not prom-client's global one: two apps in one process (tests) must not collide.
  const registry = new prom.Registry();
  const sources: MetricSources = {};

  const duration = new FastHistogram(
    "http_server_request_duration_seconds",
    "Duration of HTTP server requests, from the request reaching the app to its response being made.",
    options.buckets,
  );
  registry.registerMetric(duration as unknown as Metric);
  // Counted in a plain integer per request; the gauge reads it when scraped (cheaper than inc/dec).
  const inFlight = { count: 0 };
  new prom.Gauge({
    name: "http_server_active_requests",
    help: "HTTP requests being served now.",
    registers: [registry],
    collect() {
      this.set(inFlight.count);
    },
  });
  new prom.Gauge({
    name: "webfw_websocket_connections",
    help: "Open WebSocket connections.",
    registers: [registry],
    collect() {
      this.set(sources.websocketConnections?.() ?? 0);
    },
  });
  poolGauge(
    prom,
    registry,
    "webfw_worker_pool_workers",
    "Handler Workers in the pool (--workers).",
    (s) => s.size,
    sources,
  );
  poolGauge(
    prom,
    registry,
    "webfw_worker_pool_busy_workers",
    "Handler Workers running a call now.",
    (s) => s.busy,
    sources,
  );
  poolGauge(
    prom,
    registry,
    "webfw_worker_pool_queued_calls",
    "Offloaded calls waiting for a free Worker.",
    (s) => s.queued,
    sources,
  );
  // 1 in each process: an aggregated scrape (--processes) adds them up to the processes it covers.
  new prom.Gauge({
    name: "webfw_metrics_processes",
    help: "Server processes whose figures this scrape includes.",
    registers: [registry],
  }).set(1);
  registerBoundsMetrics(prom, registry, () => sources.uploads?.());
  registerJobMetrics(prom, registry);
  if (options.defaultMetrics) prom.collectDefaultMetrics({ register: registry });

  const wrap: DispatcherWrap = (dispatcher, route) => timeDispatcher(dispatcher, route, duration, inFlight);
  return {
    registry,
    options,
    wrap,
    sources,
    contentType: registry.contentType,
    snapshot: () => registry.getMetricsAsJSON() as Promise<MetricObjectWithValues<MetricValue<string>>[]>,
    async exposition(snapshots) {
      if (!snapshots || snapshots.length <= 1) return registry.metrics();
      // Counters and histograms add up; each gauge says how (prom-client's `aggregator`: sum by default).
      return prom.AggregatorRegistry.aggregate(snapshots).metrics();
    },
  };
}

function poolGauge(
  prom: Prom,
  registry: Registry,
  name: string,
  help: string,
  pick: (stats: { queued: number; busy: number; size: number }) => number,
  sources: MetricSources,
): Gauge {
  return new prom.Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      const stats = sources.workerPool?.();
      this.set(stats ? pick(stats) : 0);
    },
  });
}

/**
 * Times one route's requests. The label set of a route is fixed but for the
 * status, so the histogram's child per status is looked up once and kept:
 * per request that is one Map read (by the status number for the route's
 * own method) and one `observe`.
 */
function timeDispatcher(
  dispatcher: Dispatcher,
  route: RouteInfo | undefined,
  duration: FastHistogram,
  inFlight: { count: number },
): Dispatcher {
  const pattern = route?.pattern ?? "";
  const routeMethod = route?.method ?? "";
  // The route's own method by status; other methods (HEAD on a GET route, any method on the error
  // routes) by "METHOD status".
  const own = new Map<number, Series>();
  const others = new Map<string, Series>();
  const child = (method: string, status: number): Series =>
    duration.seriesFor({ method: conventionalMethod(method), route: pattern, status: String(status) });
  const record = (method: string, status: number, seconds: number) => {
    let observer: Series | undefined;
    if (method === routeMethod) {
      observer = own.get(status);
      if (observer === undefined) {
        observer = child(method, status);
        own.set(status, observer);
      }
    } else {
      const key = `${method} ${status}`;
      observer = others.get(key);
      if (observer === undefined) {
        observer = child(method, status);
        // Bounded: unknown methods are one label (`_OTHER`), statuses are 100–599.
        if (others.size < 1024) others.set(key, observer);
      }
    }
    duration.observe(observer, seconds);
  };
  return (raw, server, params, context) => {
    const started = performance.now();
    inFlight.count++;
    const done = (response: globalThis.Response) => {
      inFlight.count--;
      // An upgrade hands Bun no response (src/websocket/mount.ts reports it as status 101).
      record(raw.method, response?.status ?? 101, (performance.now() - started) / 1000);
      return response;
    };
    let result: globalThis.Response | Promise<globalThis.Response>;
    try {
      result = dispatcher(raw, server, params, context);
    } catch (error) {
      inFlight.count--;
      record(raw.method, 500, (performance.now() - started) / 1000);
      throw error;
    }
    if (result instanceof Promise) {
      return result.then(done, (error: unknown) => {
        inFlight.count--;
        record(raw.method, 500, (performance.now() - started) / 1000);
        throw error;
      });
    }
    return done(result);
  };
}
