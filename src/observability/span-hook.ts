/**
 * A span around a piece of a feature's work (an MCP tool call). Its parent is
 * the server span of the HTTP request that carried the work when known (the
 * MCP SDK may run a call outside that request's async context), else the
 * active context. Ended when the work settles; status ERROR with the
 * exception when it throws, or when it reports a failure it answers in-band.
 */
import { context, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import type { DispatchContext } from "../http/request-context.ts";
import { ATTR_ERROR_TYPE } from "./http-attributes.ts";
import { spanOf } from "./server-span.ts";

export function spanHook<T>(
  tracer: Tracer,
  name: string,
  attributes: Record<string, string | number | boolean>,
  fn: (fail: (errorType: string) => void) => Promise<T>,
  request?: DispatchContext | null,
): Promise<T> {
  const server = spanOf(request);
  const parent = server ? trace.setSpan(context.active(), server) : context.active();
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent, async (span) => {
    const fail = (errorType: string) => {
      span.setAttribute(ATTR_ERROR_TYPE, errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
    };
    try {
      return await fn(fail);
    } catch (error) {
      if (error instanceof Error) span.recordException(error);
      fail(error instanceof Error ? error.name : typeof error);
      throw error;
    } finally {
      span.end();
    }
  });
}
