/**
 * Tracing and metrics as a mount (src/plan/mount.ts, docs/observability.md): the server span and
 * the request timer around every dispatcher (outside the access log, inside the client address),
 * `GET /metrics`, the error hooks of the pipeline, and the gauges of the worker pool and uploads.
 * The server hands the build what it started (src/observability/start.ts); a build without it
 * (`app.request()`, tools) makes the app's own. With both off nothing of this folder loads.
 */
import type { AppState } from "../app-state.ts";
import type { Mount } from "../plan/mount.ts";
import type { RouteRecord } from "../router/route.ts";
import type { UploadStats } from "../uploads/mount.ts";
import type { Observability } from "./index.ts";

export function observabilityMount(app: AppState, uploads: Mount<UploadStats>): Mount<Observability> {
  return {
    name: "observability",
    async prepare(tree, facts) {
      let observability = facts.observability;
      // Made here, so closed here when the build closes.
      let own = false;
      if (observability === undefined) {
        if (!app.config.tracing && app.config.metrics === null) return null;
        observability = await (await import("./index.ts")).createObservability({
          tracing: app.config.tracing,
          metrics: app.config.metrics,
          supervised: false,
        });
        own = true;
      }
      const made = observability;
      const wrap = made.wrap;
      const traceIds = made.traceIds;
      return {
        // `GET /metrics` when metrics are on (a GET the app registered on that path wins).
        routes: made.routes(takenGetPaths(tree.routes)),
        pipeline: {
          onError: made.recordError ?? undefined,
          tracing: made.hooks ?? undefined,
          logFields: traceIds
            ? (context) => {
                const ids = traceIds(context);
                return ids ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
              }
            : undefined,
        },
        seesEveryRequest: () => wrap !== null,
        layer: wrap === null ? undefined : (dispatcher, route) => wrap(dispatcher, route),
        install(context) {
          const pool = context.pool;
          // The trace context an offloaded call carries to its Worker, and the pool gauges of the metrics.
          if (pool && made.callContext) pool.traceContext = made.callContext;
          const gate = context.mounted(uploads);
          made.bindSources({
            workerPool: pool ? () => pool.stats : undefined,
            uploads: gate === undefined ? undefined : gate.stats,
          });
          return { exports: made };
        },
        close() {
          if (own) made.close();
        },
      };
    },
  };
}

/** GET paths the app registered itself: a built-in route (`/metrics`) never shadows one. */
function takenGetPaths(routes: readonly { route: RouteRecord }[]): Set<string> {
  return new Set(routes.flatMap(({ route }) => (route.method === "GET" ? [route.path] : [])));
}
