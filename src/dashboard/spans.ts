/**
 * Spans for the dashboard without an OTLP collector (docs/dashboard.md): an in-memory tracer
 * provider whose processor hands every ended span to the dashboard, with the context manager and
 * W3C propagators that make spans nest (and cross to handler Workers). Used on the main thread
 * (src/dashboard/assemble.ts) and in each handler Worker (src/dashboard/worker-spans.ts).
 *
 * It needs the optional OpenTelemetry SDK packages; without them the dashboard still shows
 * requests, logs and charts, and says why the waterfall is empty. When `--otel` already started
 * webfw's SDK, that SDK keeps the global provider (spans go to the collector) and the dashboard
 * records none: docs/dashboard.md says so.
 */
import { threadId } from "node:worker_threads";
import type { SpanContext } from "@opentelemetry/api";
import type { SpanRecord } from "./records.ts";

/** The dashboard's span sink, and where the request whose work started a span is kept. */
export interface SpanSink {
  /** A span started: lets the dashboard link the request it runs in to its trace. */
  started(traceId: string): void;
  ended(span: SpanRecord): void;
}

export type SpanRecording = { on: true } | { on: false; reason: string };

interface EndedSpan {
  name: string;
  kind: number;
  spanContext(): SpanContext;
  parentSpanContext?: SpanContext;
  startTime: [number, number];
  duration: [number, number];
  status: { code: number };
  attributes: Record<string, unknown>;
}

const KINDS = ["internal", "server", "client", "producer", "consumer"];
const STATUSES: SpanRecord["status"][] = ["unset", "ok", "error"];

const sinks = new Set<SpanSink>();

type Modules = [
  typeof import("@opentelemetry/api"),
  typeof import("@opentelemetry/sdk-trace"),
  typeof import("@opentelemetry/core"),
  typeof import("@opentelemetry/context-async-hooks"),
];

/** The SDK modules, loaded (a build does it before listening), or why they cannot be. */
export type SpanModules = { modules: Modules } | { reason: string };

let loading: Promise<SpanModules> | null = null;
let registered: SpanRecording | null = null;

/** Loads the SDK modules once per thread; registers nothing (an in-process build never listens). */
export function loadSpanModules(): Promise<SpanModules> {
  loading ??= Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/core"),
    import("@opentelemetry/context-async-hooks"),
  ]).then(
    (modules): SpanModules => ({ modules }),
    (error: unknown): SpanModules => ({
      reason: `the trace waterfall needs the optional packages @opentelemetry/sdk-trace, @opentelemetry/core and @opentelemetry/context-async-hooks (${(error as Error).message})`,
    }),
  );
  return loading;
}

/**
 * Registers the in-memory provider, once per thread (the global provider can be set only once),
 * when a server with the dashboard starts listening; `{ on: false }` with the reason when it cannot.
 */
export function spanRecording(loaded: SpanModules): SpanRecording {
  registered ??= "reason" in loaded ? { on: false, reason: loaded.reason } : register(loaded.modules);
  return registered;
}

/** Sends this thread's spans to `sink` (every running dashboard gets every span) until the returned call. */
export function addSpanSink(sink: SpanSink): () => void {
  sinks.add(sink);
  return () => sinks.delete(sink);
}

function register([api, sdk, core, hooks]: Modules): SpanRecording {
  const thread = threadId === 0 ? "main" : `worker ${threadId}`;
  const provider = new sdk.TracerProvider({
    spanProcessors: [
      {
        onStart: (span) => {
          const traceId = span.spanContext().traceId;
          for (const sink of sinks) sink.started(traceId);
        },
        onEnd: (span) => {
          if (sinks.size === 0) return;
          const record = toRecord(span as unknown as EndedSpan, thread);
          for (const sink of sinks) sink.ended(record);
        },
        forceFlush: async () => {},
        shutdown: async () => {},
      },
    ],
  });
  // `false` when a provider is already set (webfw's SDK under --otel): that one keeps the spans.
  if (!api.trace.setGlobalTracerProvider(provider)) {
    return {
      on: false,
      reason: "--otel is on: spans go to the OpenTelemetry collector, not to the dashboard",
    };
  }
  const contextManager = new hooks.AsyncLocalStorageContextManager();
  contextManager.enable();
  api.context.setGlobalContextManager(contextManager);
  api.propagation.setGlobalPropagator(
    new core.CompositePropagator({
      propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()],
    }),
  );
  return { on: true };
}

function toRecord(span: EndedSpan, thread: string): SpanRecord {
  const context = span.spanContext();
  const attributes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(span.attributes)) attributes[key] = value;
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    parentId: span.parentSpanContext?.spanId ?? null,
    name: span.name,
    kind: KINDS[span.kind] ?? "internal",
    start: span.startTime[0] * 1000 + span.startTime[1] / 1e6,
    durationMs: span.duration[0] * 1000 + span.duration[1] / 1e6,
    status: STATUSES[span.status.code] ?? "unset",
    thread,
    attributes,
  };
}
