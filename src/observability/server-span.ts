/**
 * One server span per request (docs/observability.md), through `@opentelemetry/api`
 * only: with no SDK registered every call below is the API's no-op, and with
 * one (ours from `--otel`, or the application's own) the span is recorded.
 *
 * The span starts before the route's pipeline and ends when its response is
 * made, whatever made it: the handler, a middleware, an error (404, 405, 413,
 * 500, the 503 of a timeout), or the client going away first. The request's
 * `traceparent`/`tracestate` (and baggage) are its parent; the pipeline runs
 * inside the span's context, so spans a handler starts nest under it and an
 * offloaded call carries it to its Worker (src/observability/worker-trace.ts).
 */
import {
  type Context,
  context,
  ProxyTracerProvider,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { Server } from "bun";
import { ContextSlot, contextOf, type DispatchContext } from "../http/request-context.ts";
import { requestIdOf } from "../http/request-id.ts";
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_REQUEST_ID,
  requestAttributes,
  serverSpanName,
} from "./http-attributes.ts";
import type { Dispatcher, RouteInfo } from "./route-info.ts";

/** The instrumentation scope name spans are reported under. */
export const TRACER_NAME = "webfw";

/** Reads propagation headers straight from Bun's request headers. */
export const headerGetter: TextMapGetter<globalThis.Headers> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  keys: (carrier) => [...carrier.keys()],
};

/** What the layers around a request know of its span. */
interface SpanState {
  span: Span;
  /** The class of an error the pipeline turned into a response (reported as `error.type` on a 5xx). */
  errorType?: string;
  ended: boolean;
}

/** The span of a request being served, in its context (error logs and access lines look here). */
const LIVE = new ContextSlot<SpanState>();

/** The request's recording span, if tracing is on and the request is sampled. */
export function spanOf(context: DispatchContext | null | undefined): Span | undefined {
  return LIVE.get(context)?.span;
}

/** `trace_id`/`span_id` of the request's span for log lines; empty when there is none. */
export function traceIdsOf(context: DispatchContext | null | undefined): {
  traceId?: string;
  spanId?: string;
} {
  const state = LIVE.get(context);
  if (!state) return {};
  const { traceId, spanId } = state.span.spanContext();
  return { traceId, spanId };
}

/**
 * An error the pipeline caught and answered (the default 500, the app's
 * exception handler): recorded on the request's span as an `exception` event.
 */
export function recordRequestError(error: unknown, context: DispatchContext | null): void {
  const state = LIVE.get(context);
  if (!state || state.ended) return;
  if (error instanceof Error) state.span.recordException(error);
  else state.span.recordException(String(error));
  state.errorType = error instanceof Error ? error.name || error.constructor.name : typeof error;
}

function finish(
  state: SpanState,
  raw: globalThis.Request,
  context: DispatchContext,
  response: globalThis.Response,
): globalThis.Response {
  if (state.ended) return response;
  state.ended = true;
  const span = state.span;
  // An upgrade (WebSocket) hands Bun no response: the pipeline reports it as a bare `{ status: 101 }`.
  const status = response?.status ?? 101;
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  // The id the request-id layer assigned (or, with request ids off, the one logs and handlers see).
  span.setAttribute(ATTR_REQUEST_ID, requestIdOf(raw, context));
  // Server spans: 5xx is an error, 4xx is the client's (HTTP semantic conventions, "Status").
  if (status >= 500) {
    span.setAttribute(ATTR_ERROR_TYPE, state.errorType ?? String(status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
  return response;
}

function fail(state: SpanState, error: unknown): void {
  if (state.ended) return;
  state.ended = true;
  const span = state.span;
  if (error instanceof Error) span.recordException(error);
  span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : typeof error);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
  span.end();
}

/**
 * The client closed the connection before the response was made: the span
 * ends now (a handler that never finishes must not leave it open), marked as
 * an error of type `client_aborted`, without a status code (none was sent).
 */
function aborted(state: SpanState): void {
  if (state.ended) return;
  state.ended = true;
  state.span.setAttribute(ATTR_ERROR_TYPE, "client_aborted");
  state.span.setStatus({ code: SpanStatusCode.ERROR, message: "the client closed the connection first" });
  state.span.end();
}

/** The parent of a request's span: the client's `traceparent`/`tracestate` and baggage, if any. */
export function incomingContext(raw: globalThis.Request): Context {
  return propagation.extract(ROOT_CONTEXT, raw.headers, headerGetter);
}

/**
 * Whether an SDK is registered: the API's global provider is a proxy whose delegate is the SDK's
 * provider once one is set, and asking it for a delegate tracer is the cheap, public way to know.
 */
export function sdkPresent(): () => boolean {
  const provider = trace.getTracerProvider();
  if (!(provider instanceof ProxyTracerProvider)) return () => true;
  return () => provider.getDelegateTracer(TRACER_NAME) !== undefined;
}

/** Wraps one route's dispatcher so that each request gets a server span. */
export function traceDispatcher(
  dispatcher: Dispatcher,
  route: RouteInfo | undefined,
  tracer: Tracer,
  recording: () => boolean = sdkPresent(),
): Dispatcher {
  const pattern = route?.pattern ?? null;
  const run = (
    raw: globalThis.Request,
    server: Server<unknown> | null,
    params: Record<string, string>,
    dispatchContext: DispatchContext | undefined,
  ) => dispatcher(raw, server, params, dispatchContext);
  return (raw, server, params, dispatchContext) => {
    // No SDK registered (the API alone): every call below would be a no-op, so none is made. Checked per
    // request, so an SDK the application registers after start is used from then on.
    if (!recording()) return dispatcher(raw, server, params, dispatchContext);
    const parent = incomingContext(raw);
    const span = tracer.startSpan(serverSpanName(raw.method, pattern), { kind: SpanKind.SERVER }, parent);
    const active = trace.setSpan(parent, span);
    // Not sampled (or no SDK): nothing to record, but the context still travels (to Workers, to user code).
    if (!span.isRecording())
      return context.with(active, run, undefined, raw, server, params, dispatchContext);
    const own = contextOf(dispatchContext);
    span.setAttributes(requestAttributes(raw, server, pattern, own));
    const state: SpanState = { span, ended: false };
    LIVE.set(own, state);
    const signal = raw.signal;
    const onAbort = () => aborted(state);
    signal.addEventListener("abort", onAbort, { once: true });
    const done = (response: globalThis.Response) => {
      signal.removeEventListener("abort", onAbort);
      return finish(state, raw, own, response);
    };
    let result: globalThis.Response | Promise<globalThis.Response>;
    try {
      result = context.with(active, run, undefined, raw, server, params, own);
    } catch (error) {
      signal.removeEventListener("abort", onAbort);
      fail(state, error);
      throw error;
    }
    if (result instanceof Promise) {
      return result.then(done, (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        fail(state, error);
        throw error;
      });
    }
    return done(result);
  };
}
