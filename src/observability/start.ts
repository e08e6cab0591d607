/**
 * What `app.start()` turns on for observability, from the app's options, the
 * flags (`--otel`, `--metrics`) and the OpenTelemetry variables; started
 * before the worker pool so that its Workers start their own SDK too.
 */
import { type ResolvedMetricsOptions, resolveMetricsOptions } from "./metrics-options.ts";
import { NO_OBSERVABILITY, type Observability } from "./observability.ts";
import { defaultServiceName, OTEL_WORKER_ENV, otelSdkRequested } from "./options.ts";
import type { OtelSdk } from "./otel-sdk.ts";

export interface TelemetryInput {
  mainFile: string;
  config: { tracing: boolean; metrics: ResolvedMetricsOptions | null };
}

export interface Telemetry {
  observability: Observability;
  /** webfw's OpenTelemetry SDK in this process, when `--otel` or the OTLP variables turned it on. */
  sdk: OtelSdk | null;
  /** Exports buffered spans and detaches from the supervisor (the server is stopping). */
  close(): Promise<void>;
}

export async function startTelemetry(
  app: TelemetryInput,
  flags: { otel: boolean; metrics: boolean } | undefined,
  supervised: boolean,
): Promise<Telemetry> {
  let sdk: OtelSdk | null = null;
  if (otelSdkRequested(flags?.otel ?? false)) {
    const { startOtelSdk } = await import("./otel-sdk.ts");
    sdk = await startOtelSdk({ serviceName: defaultServiceName(app.mainFile) });
    // Workers are spawned with this process's environment: they see it and start theirs.
    process.env[OTEL_WORKER_ENV] = "1";
  }
  const metrics = app.config.metrics ?? (flags?.metrics ? resolveMetricsOptions(true) : null);
  const tracing = app.config.tracing || sdk !== null;
  // ./index.ts (the layers, `/metrics`) loads only when one of them is on.
  const observability =
    !tracing && metrics === null
      ? NO_OBSERVABILITY
      : await (await import("./index.ts")).createObservability({ tracing, metrics, supervised });
  return {
    observability,
    sdk,
    async close() {
      observability.close();
      // Flushed, not shut down: the SDK is per thread, and another server in this process may still use it.
      await sdk?.forceFlush().catch(() => {});
    },
  };
}
