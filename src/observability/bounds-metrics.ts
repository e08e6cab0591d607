/**
 * The series of the app's bounds (docs/security.md#bounds), read when scraped: nothing is counted
 * per request for them beyond what the bounds count anyway.
 *   webfw_background_tasks_running / _queued      gauges (this thread's task lists)
 *   webfw_background_tasks_dropped_total          counter (task lists dropped, queue full)
 *   webfw_uploads_in_flight / _in_flight_bytes    gauges
 *   webfw_uploads_refused_total                   counter (503s of the upload bounds)
 */
import type { Registry } from "prom-client";
import { backgroundStats } from "../background/tasks.ts";

/** What the upload gate tells (src/uploads/gate.ts). */
export interface UploadStats {
  inFlight: number;
  bytes: number;
  refused: number;
}

type Prom = typeof import("prom-client");

export function registerBoundsMetrics(
  prom: Prom,
  registry: Registry,
  uploads: () => UploadStats | undefined,
): void {
  const gauge = (name: string, help: string, read: () => number) =>
    new prom.Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  // A counter whose total lives elsewhere: each scrape sets it to that total.
  const counter = (name: string, help: string, read: () => number) =>
    new prom.Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  gauge(
    "webfw_background_tasks_running",
    "Requests whose background tasks run now (a request's tasks run in order, one slot).",
    () => backgroundStats().running,
  );
  gauge(
    "webfw_background_tasks_queued",
    "Requests whose background tasks wait for a slot.",
    () => backgroundStats().queued,
  );
  counter(
    "webfw_background_tasks_dropped_total",
    "Requests whose background tasks were dropped because the queue was full.",
    () => backgroundStats().dropped,
  );
  gauge("webfw_uploads_in_flight", "Streamed uploads in flight.", () => uploads()?.inFlight ?? 0);
  gauge(
    "webfw_uploads_in_flight_bytes",
    "Bytes of streamed uploads in flight (declared lengths reserved, chunked bodies as they arrive).",
    () => uploads()?.bytes ?? 0,
  );
  counter(
    "webfw_uploads_refused_total",
    "Streamed uploads refused or stopped (503) by the upload bounds.",
    () => uploads()?.refused ?? 0,
  );
}
