/**
 * The trace context crossing to the worker pool with an offloaded call.
 *
 * Main thread: `callContext()` writes the active context (the request's
 * server span) as W3C headers into the call message. Worker: `runTraced`
 * reads them back and runs the handler inside a child span, in the Worker's
 * own context, so spans the handler starts nest under it. The Worker exports
 * its spans itself (its own SDK, started by the worker entry), so the trace
 * is whole even though its spans come from different threads.
 */

import { threadId } from "node:worker_threads";
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_THREAD_ID,
} from "./http-attributes.ts";
import { TRACER_NAME } from "./server-span.ts";

/** The propagation headers of the active context, or undefined when there is no span to continue. */
export function callContext(): Record<string, string> | undefined {
  const active = context.active();
  if (trace.getSpan(active) === undefined) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/**
 * Runs an offloaded handler in a span `handler METHOD /pattern` whose parent
 * is the server span of the main thread. `route` is the call's `METHOD /pattern`.
 * The status the handler's response will have is set by `run`'s result when it has one.
 */
export async function runTraced<T extends { status?: number } | object>(
  carrier: Record<string, string>,
  route: string,
  run: () => Promise<T>,
): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, carrier);
  const tracer = trace.getTracer(TRACER_NAME);
  const pattern = route.slice(route.indexOf(" ") + 1);
  const span = tracer.startSpan(
    `handler ${route}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: { [ATTR_HTTP_ROUTE]: pattern, [ATTR_THREAD_ID]: threadId, "webfw.offload": true },
    },
    parent,
  );
  try {
    const result = await context.with(trace.setSpan(parent, span), run);
    const status = (result as { status?: unknown }).status;
    if (typeof status === "number") {
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return result;
  } catch (error) {
    if (error instanceof Error) span.recordException(error);
    span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : typeof error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
