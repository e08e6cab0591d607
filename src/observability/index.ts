/**
 * Observability of one built app (docs/observability.md): the layers that go around
 * every route's dispatcher (the server span, then the request timer), the
 * `/metrics` route, and what the worker pool, the error log and the access
 * log read from them. Built by `app.build()`, once per start.
 *
 * Only what is on is loaded: with tracing and metrics off this module
 * imports neither `@opentelemetry/api` nor `prom-client`, and the build gets
 * no layer at all (the bench row "everything off").
 */
import type { TracingHooks } from "./hooks.ts";
import type { ResolvedMetricsOptions } from "./metrics-options.ts";
import type { MetricsClusterLink } from "./metrics-relay.ts";
import { NO_OBSERVABILITY, type Observability } from "./observability.ts";
import { composeWraps, type DispatcherWrap } from "./route-info.ts";

export type { Observability } from "./observability.ts";
export type { DispatcherWrap, RouteInfo } from "./route-info.ts";

export interface ObservabilityConfig {
  /** Server spans through `@opentelemetry/api` (the app's `tracing` option, `--otel`, or the OTLP variables). */
  tracing: boolean;
  metrics: ResolvedMetricsOptions | null;
  /** Join the supervisor's metrics relay (a process of `--processes N`). */
  supervised: boolean;
}

export async function createObservability(config: ObservabilityConfig): Promise<Observability> {
  if (!config.tracing && config.metrics === null) return NO_OBSERVABILITY;
  const wraps: DispatcherWrap[] = [];
  let traceIds: Observability["traceIds"] = null;
  let recordError: Observability["recordError"] = null;
  let callContext: Observability["callContext"] = null;
  let hooks: TracingHooks | null = null;
  if (config.tracing) {
    const [{ trace }, spans, workers, { VERSION }, websockets, { spanHook }] = await Promise.all([
      import("@opentelemetry/api"),
      import("./server-span.ts"),
      import("./worker-trace.ts"),
      import("../launch/version.ts"),
      import("./websocket-trace.ts"),
      import("./span-hook.ts"),
    ]);
    // Through the global provider's proxy: an SDK the application registers later is still used.
    const tracer = trace.getTracer(spans.TRACER_NAME, VERSION);
    wraps.push((dispatcher, route) => spans.traceDispatcher(dispatcher, route, tracer));
    traceIds = spans.traceIdsOf;
    recordError = spans.recordRequestError;
    callContext = workers.callContext;
    hooks = {
      webSocket: (pattern, raw, context) => websockets.webSocketTracer(tracer, pattern, raw, context),
      inSpan: (name, attributes, fn, request) => spanHook(tracer, name, attributes, fn, request),
      inject: (headers) => {
        const carrier = workers.callContext();
        if (carrier !== undefined)
          for (const [name, value] of Object.entries(carrier)) headers.set(name, value);
      },
    };
  }
  let metricsRoutes: Observability["routes"] = () => [];
  let link: MetricsClusterLink | null = null;
  let bindSources: Observability["bindSources"] = () => {};
  if (config.metrics !== null) {
    const [{ createHttpMetrics }, endpoint, relay] = await Promise.all([
      import("./metrics.ts"),
      import("./metrics-endpoint.ts"),
      import("./metrics-relay.ts"),
    ]);
    const metrics = await createHttpMetrics(config.metrics);
    wraps.push(metrics.wrap);
    link = config.supervised ? relay.joinMetricsRelay(() => metrics.snapshot()) : null;
    const joined = link;
    metricsRoutes = (taken) => endpoint.metricsRoutes(metrics, joined, taken);
    bindSources = (sources) => Object.assign(metrics.sources, sources);
  }
  return {
    wrap: composeWraps(wraps),
    routes: metricsRoutes,
    traceIds,
    recordError,
    callContext,
    hooks,
    bindSources,
    close: () => link?.close(),
  };
}
