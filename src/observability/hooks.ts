/**
 * What features call when tracing is on (types only: the implementations live in
 * src/observability/ and are loaded with tracing). The build hands them to every
 * dispatcher and mount through `PipelineConfig.tracing`; absent when tracing is off,
 * so a feature checks one field and does nothing else.
 */
import type { DispatchContext } from "../http/request-context.ts";

/** The spans of one WebSocket connection's messages (src/observability/websocket-trace.ts). */
export interface WebSocketMessageTracer {
  /** Runs the connection's handlers inside the upgrade request's trace context. */
  run<T>(fn: () => T): T;
  /** Bun delivered a message: its span starts. */
  delivered(message: string | Uint8Array): void;
  /** The handler asks for another message: the span of the one it was handling ends. */
  asked(): void;
  /** The handler took the oldest delivered message: that span is the one being handled now. */
  taken(): void;
  /** The connection ended: every open message span ends. */
  closed(code: number): void;
}

export interface TracingHooks {
  /** A tracer for the connection the upgrade request `raw` (matched by `pattern`) opens. */
  webSocket(
    pattern: string,
    raw: globalThis.Request,
    context: DispatchContext | null,
  ): WebSocketMessageTracer;
  /**
   * Runs `fn` in a span named `name` (kind INTERNAL): MCP tool calls. Its parent is the server span
   * of `request` when given (the `/mcp` request that carried the call), else the active context.
   * `fn` may call `fail(type)` for an error it answers in-band (a tool result with `isError`).
   */
  inSpan<T>(
    name: string,
    attributes: Record<string, string | number | boolean>,
    fn: (fail: (errorType: string) => void) => Promise<T>,
    request?: DispatchContext | null,
  ): Promise<T>;
  /**
   * Writes the active trace context (`traceparent`, `tracestate`, baggage) into `headers`: a request
   * made in process (a route called as an MCP tool) then continues the trace of the work that made it.
   */
  inject(headers: globalThis.Headers): void;
}
