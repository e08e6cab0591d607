/**
 * What the rest of the server uses of observability (docs/observability.md), and the value with
 * tracing and metrics off: the server starts with that one without loading ./index.ts (start-up,
 * docs/performance.md, "Start-up and idle memory").
 */
import type { DispatchContext } from "../http/request-context.ts";
import type { RouteRecord } from "../router/route.ts";
import type { TracingHooks } from "./hooks.ts";
import type { DispatcherWrap } from "./route-info.ts";

/** What the rest of the server uses; every member is inert when its feature is off. */
export interface Observability {
  /** Layers around each dispatcher (tracing outermost, then the timer); identity when both are off. */
  readonly wrap: DispatcherWrap | null;
  /** Built-in routes to compile beside the app's (`GET /metrics`). */
  routes(taken: Set<string>): RouteRecord[];
  /** `trace_id`/`span_id` of a request, for log lines. */
  readonly traceIds:
    | ((context: DispatchContext | null | undefined) => { traceId?: string; spanId?: string })
    | null;
  /** Records an error the pipeline answered on the request's span. */
  readonly recordError: ((error: unknown, context: DispatchContext | null) => void) | null;
  /** The active trace context as headers, for a call sent to a Worker. */
  readonly callContext: (() => Record<string, string> | undefined) | null;
  /** Spans features start themselves (WebSocket messages, MCP tool calls). */
  readonly hooks: TracingHooks | null;
  /** Gauges that read the running server. */
  bindSources(sources: {
    workerPool?: () => { queued: number; busy: number; size: number } | null;
    websocketConnections?: () => number;
    uploads?: () => { inFlight: number; bytes: number; refused: number };
  }): void;
  close(): void;
}

/** Tracing and metrics off: every member inert. */
export const NO_OBSERVABILITY: Observability = {
  wrap: null,
  routes: () => [],
  traceIds: null,
  recordError: null,
  callContext: null,
  hooks: null,
  bindSources: () => {},
  close: () => {},
};
