/**
 * A span around a piece of a feature's work (an MCP tool call), child of the
 * active context (the `/mcp` request's server span): ended when the work
 * settles, with the exception recorded and status ERROR when it throws.
 */
import { SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";
import { ATTR_ERROR_TYPE } from "./http-attributes.ts";

export function spanHook<T>(
  tracer: Tracer,
  name: string,
  attributes: Record<string, string | number | boolean>,
  fn: () => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof Error) span.recordException(error);
      span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : typeof error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
