/**
 * Starts the OpenTelemetry SDK in this process or Worker: a tracer provider
 * with a batch span processor and the OTLP/HTTP trace exporter, the W3C
 * trace-context and baggage propagators, and an AsyncLocalStorage context
 * manager (so spans that handlers start through `@opentelemetry/api` nest
 * under the request's server span).
 *
 * It runs only when `--otel` is given or `OTEL_EXPORTER_OTLP_ENDPOINT` is set
 * (src/observability/options.ts): the SDK packages are optional dependencies,
 * imported here and nowhere else, so an app without tracing never loads them.
 *
 * The SDK packages read the exporter's own variables (`OTEL_EXPORTER_OTLP_*`
 * endpoint, headers, timeout, compression). The SDK 2.x tracer provider no
 * longer reads the sampler and batch variables, so they are read here, as the
 * OpenTelemetry specification names them (docs/observability.md lists them).
 */
import type { Sampler, SpanExporter } from "@opentelemetry/sdk-trace";

type Env = Record<string, string | undefined>;

/** What a started SDK lets the server do at shutdown. */
export interface OtelSdk {
  /** Exports what is buffered (the batch processor exports every `OTEL_BSP_SCHEDULE_DELAY` ms otherwise). */
  forceFlush(): Promise<void>;
  /** Exports what is buffered and stops; later spans are dropped. */
  shutdown(): Promise<void>;
}

export interface OtelSdkOptions {
  /** `service.name` when `OTEL_SERVICE_NAME` (or `service.name` in `OTEL_RESOURCE_ATTRIBUTES`) does not set it. */
  serviceName: string;
  env?: Env;
}

/** The protocols of OTLP over HTTP; `grpc` is refused with a clear message (no gRPC stack is bundled). */
export type OtlpProtocol = "http/protobuf" | "http/json";

const SDK_KEY = Symbol.for("webfw.otelSdk");
const holder = globalThis as unknown as Record<symbol, Promise<OtelSdk> | undefined>;

/** The protocol the exporter speaks, from the trace-specific variable, then the general one. */
export function otlpProtocol(env: Env = process.env): OtlpProtocol {
  const raw = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || "http/protobuf")
    .trim()
    .toLowerCase();
  if (raw === "http/protobuf" || raw === "http/json") return raw;
  if (raw === "grpc") {
    throw new Error(
      "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported by webfw: use http/protobuf (the default) or http/json; every collector accepts OTLP/HTTP on port 4318",
    );
  }
  throw new Error(`unknown OTEL_EXPORTER_OTLP_PROTOCOL '${raw}' (expected http/protobuf or http/json)`);
}

/**
 * Starts the SDK once per thread (a second call returns the first one's
 * handle): the server, each supervised process and each handler Worker call it.
 */
export function startOtelSdk(options: OtelSdkOptions): Promise<OtelSdk> {
  holder[SDK_KEY] ??= start(options);
  return holder[SDK_KEY];
}

/** The SDK started in this thread, if any (the Worker entry flushes it before it is terminated). */
export function startedOtelSdk(): Promise<OtelSdk> | undefined {
  return holder[SDK_KEY];
}

async function start(options: OtelSdkOptions): Promise<OtelSdk> {
  const env = options.env ?? process.env;
  const protocol = otlpProtocol(env);
  const [api, sdk, core, resources, contextHooks, exporter] = await Promise.all([
    import("@opentelemetry/api"),
    optional(() => import("@opentelemetry/sdk-trace")),
    optional(() => import("@opentelemetry/core")),
    optional(() => import("@opentelemetry/resources")),
    optional(() => import("@opentelemetry/context-async-hooks")),
    protocol === "http/json"
      ? optional(() => import("@opentelemetry/exporter-trace-otlp-http"))
      : optional(() => import("@opentelemetry/exporter-trace-otlp-proto")),
  ]);

  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) win over the defaults below.
  const detected = resources.detectResources({ detectors: [resources.envDetector] });
  const resource = resources
    .resourceFromAttributes({
      "service.name": options.serviceName,
      "process.pid": process.pid,
      "process.runtime.name": "bun",
      "process.runtime.version": Bun.version,
    })
    .merge(detected);

  const spanExporter: SpanExporter = new exporter.OTLPTraceExporter();
  const provider = new sdk.TracerProvider({
    resource,
    sampler: samplerFromEnv(sdk, env),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: spanExporter, ...batchOptionsFromEnv(env) })],
  });

  const contextManager = new contextHooks.AsyncLocalStorageContextManager();
  contextManager.enable();
  api.context.setGlobalContextManager(contextManager);
  api.propagation.setGlobalPropagator(
    new core.CompositePropagator({
      propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()],
    }),
  );
  api.trace.setGlobalTracerProvider(provider);

  return {
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** An optional dependency, or an error that says which packages to install. */
async function optional<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw new Error(
      `--otel needs the OpenTelemetry SDK packages (optional dependencies of webfw): bun add @opentelemetry/sdk-trace @opentelemetry/core @opentelemetry/resources @opentelemetry/context-async-hooks @opentelemetry/exporter-trace-otlp-proto @opentelemetry/exporter-trace-otlp-http (${(error as Error)?.message ?? error})`,
    );
  }
}

type SdkModule = typeof import("@opentelemetry/sdk-trace");

/** `OTEL_TRACES_SAMPLER` (+ `_ARG`), as the specification lists them; default parent-based always-on. */
export function samplerFromEnv(sdk: SdkModule, env: Env): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? "parentbased_always_on").trim().toLowerCase();
  const rawRatio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? "1");
  const ratio = Number.isFinite(rawRatio) && rawRatio >= 0 && rawRatio <= 1 ? rawRatio : 1;
  switch (name) {
    case "always_on":
      return new sdk.AlwaysOnSampler();
    case "always_off":
      return new sdk.AlwaysOffSampler();
    case "traceidratio":
      return new sdk.TraceIdRatioBasedSampler(ratio);
    case "parentbased_always_off":
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(ratio) });
    case "parentbased_always_on":
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() });
    default:
      throw new Error(
        `unknown OTEL_TRACES_SAMPLER '${name}' (always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio)`,
      );
  }
}

/** `OTEL_BSP_*`: batch delay, queue and batch sizes, export timeout (unset or invalid: the SDK's defaults). */
export function batchOptionsFromEnv(env: Env): {
  scheduledDelayMillis?: number;
  maxQueueSize?: number;
  maxExportBatchSize?: number;
  exportTimeoutMillis?: number;
} {
  const read = (name: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === "") return undefined;
    const value = Number(raw);
    return Number.isInteger(value) && value > 0 ? value : undefined;
  };
  const options = {
    scheduledDelayMillis: read("OTEL_BSP_SCHEDULE_DELAY"),
    maxQueueSize: read("OTEL_BSP_MAX_QUEUE_SIZE"),
    maxExportBatchSize: read("OTEL_BSP_MAX_EXPORT_BATCH_SIZE"),
    exportTimeoutMillis: read("OTEL_BSP_EXPORT_TIMEOUT"),
  };
  // The SDK requires a batch no larger than the queue.
  if (
    options.maxQueueSize !== undefined &&
    options.maxExportBatchSize !== undefined &&
    options.maxExportBatchSize > options.maxQueueSize
  ) {
    options.maxExportBatchSize = options.maxQueueSize;
  }
  return options;
}
