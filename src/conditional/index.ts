/**
 * Conditional requests and caching headers (docs/conditional-requests.md): a weak ETag for
 * buffered 200 answers with `If-None-Match`/`If-Modified-Since` → 304, `If-Match`/
 * `If-Unmodified-Since` (and `If-None-Match` on unsafe methods) → 412 before the handler, and a
 * route's `Cache-Control`. The build asks `conditionalRoute` once per route; a route with none of
 * it gets `null` and runs none of this code.
 */
import type { Request } from "../http/request.ts";
import { ContextSlot, contextOf } from "../http/request-context.ts";
import { withHeader } from "../response/copy-response.ts";
import { HttpError } from "../response/errors.ts";
import { withVisibleContentType } from "../response/plain-text.ts";
import type { Dispatcher, RoutePlan } from "../serve/dispatch.ts";
import { peekBody } from "../stream/peek-body.ts";
import { httpDateSec, ifMatchHolds, noneMatchFails, weakEtag } from "./entity-tags.ts";
import { notModified } from "./not-modified.ts";
import { type ConditionalRouteOptions, checkedEtag, type Preconditions } from "./options.ts";

export type { ConditionalRouteOptions, Preconditions, ResourceValidators } from "./options.ts";
export { checkConditionalOptions } from "./options.ts";

/** Bodies larger than this are sent without an ETag (hashing them would hold the whole body in memory). */
const MAX_HASHED_BYTES = 8 * 1024 * 1024;

/** Whether a route has anything of this module (a const route with it is then answered in JS, not by Bun). */
export function usesConditional(options: ConditionalRouteOptions, appEtag: boolean, method: string): boolean {
  const etag = (options.etag ?? appEtag) && (method === "GET" || method === "HEAD");
  return etag || options.cacheControl !== undefined || options.preconditions !== undefined;
}

/** How the route's answer reaches the layer: made inline from the handler's value, or as a Worker's reply. */
export interface ConditionalRoute {
  /** Wraps the compiled dispatcher (inside compression, rate limits and the other layers). */
  wrap(dispatcher: Dispatcher): Dispatcher;
}

/**
 * The route's conditional layer, or null when it has no `etag` (own or the app's), `cacheControl`
 * or `preconditions`. Wraps `plan.invoke`/`plan.handler` to see the handler's value (only values
 * built in memory get an ETag: strings, JSON, bytes, `html()`; never streams, files or SSE) and
 * to run the preconditions after authentication and before the handler.
 */
export function conditionalRoute(
  plan: RoutePlan,
  options: ConditionalRouteOptions,
  appEtag: boolean,
  shape: { offloaded: boolean; constant: boolean },
): ConditionalRoute | null {
  const etag = (options.etag ?? appEtag) && (plan.method === "GET" || plan.method === "HEAD");
  const cacheControl = options.cacheControl ?? null;
  const preconditions = options.preconditions ?? null;
  if (!usesConditional(options, appEtag, plan.method)) return null;
  // A const route's answer is made once, in memory; a Worker's reply was peeked there (src/workers/run-call.ts).
  const always = shape.constant;
  const peek = shape.offloaded && !shape.constant;
  // Otherwise the handler marks the request's context when its value was built in memory.
  const marks = etag && !always && !peek;
  const inner = plan.invoke ?? plan.handler;
  const invoke = (request: Request): unknown => {
    if (preconditions !== null) return checkThenRun(request, preconditions, inner, marks);
    const value = inner(request);
    if (marks) markBuffered(request, value);
    return value;
  };
  if (plan.invoke !== undefined) plan.invoke = invoke;
  else plan.handler = invoke;
  return {
    wrap(dispatcher) {
      return (raw, server, params, context) => {
        const own = marks ? contextOf(context) : context;
        const result = dispatcher(raw, server, params, own);
        const finish = (response: globalThis.Response) =>
          answer(raw, response, cacheControl, etag && (always || peek || BUFFERED.get(own) === true), peek);
        return result instanceof Promise ? result.then(finish) : finish(result);
      };
    },
  };
}

/** Requests whose handler value was built in memory (marked only on routes with ETags). */
const BUFFERED = new ContextSlot<true>();

function markBuffered(request: Request, value: unknown): void {
  if (value instanceof Promise) {
    value.then(
      (settled) => markBuffered(request, settled),
      () => {},
    );
    return;
  }
  if (isInMemory(value) && request.context !== null) BUFFERED.set(request.context, true);
}

/** What src/response/convert.ts turns into a body it holds in memory. */
export function isInMemory(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value !== "object") return true;
  if (Array.isArray(value)) return value.length !== 2 || typeof value[1] !== "number" || isInMemory(value[0]);
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) return true;
  if (value instanceof ReadableStream || value instanceof globalThis.Response || value instanceof Blob)
    return false;
  if (Symbol.asyncIterator in value || Symbol.iterator in value) return false;
  const renderable = value as { inMemory?: unknown; toResponse?: unknown; stream?: unknown };
  if ("inMemory" in renderable) return renderable.inMemory === true;
  // An SSE body or a webfw Response carrying a stream.
  if (typeof renderable.toResponse === "function") return false;
  if ("stream" in renderable) return renderable.stream === null || renderable.stream === undefined;
  return true;
}

async function checkThenRun(
  request: Request,
  preconditions: Preconditions,
  inner: (request: Request) => unknown,
  marks: boolean,
): Promise<unknown> {
  const current = await preconditions(request);
  if (preconditionFailed(request.raw, current)) throw new HttpError(412, "Precondition Failed");
  const value = await inner(request);
  if (marks && isInMemory(value) && request.context !== null) BUFFERED.set(request.context, true);
  return value;
}

/** RFC 9110 §13.2.2, steps 1-3 (the GET/HEAD 304 of step 3 and step 4 are the answer's, below). */
function preconditionFailed(
  raw: globalThis.Request,
  current: { etag?: string; lastModified?: Date | number } | null,
): boolean {
  const etag = current === null ? null : checkedEtag(current.etag);
  const ifMatch = raw.headers.get("if-match");
  if (ifMatch !== null) {
    if (!ifMatchHolds(ifMatch, etag, current !== null)) return true;
  } else {
    const since = httpDateSec(raw.headers.get("if-unmodified-since"));
    const modified = current?.lastModified;
    if (since !== null && modified !== undefined && Math.floor(new Date(modified).getTime() / 1000) > since)
      return true;
  }
  const ifNoneMatch = raw.headers.get("if-none-match");
  const safe = raw.method === "GET" || raw.method === "HEAD";
  return (
    !safe && ifNoneMatch !== null && noneMatchFails(ifNoneMatch, current === null ? null : (etag ?? '"*"'))
  );
}

async function answer(
  raw: globalThis.Request,
  response: globalThis.Response,
  cacheControl: string | null,
  hashable: boolean,
  peek: boolean,
): Promise<globalThis.Response> {
  const status = response.status;
  if (
    cacheControl !== null &&
    ((status >= 200 && status < 300) || status === 304) &&
    !response.headers.has("cache-control")
  ) {
    response = withHeader(response, "cache-control", cacheControl);
  }
  // RFC 9110 §13.2.1: conditions are only evaluated when the answer would be 200 otherwise.
  if (status !== 200 || (raw.method !== "GET" && raw.method !== "HEAD")) return response;
  let etag = response.headers.get("etag");
  if (etag === null && hashable && response.body !== null && !response.headers.has("content-encoding")) {
    response = withVisibleContentType(response);
    const bytes = await bodyBytes(response, peek);
    if (bytes instanceof globalThis.Response) return bytes;
    if (bytes.byteLength <= MAX_HASHED_BYTES) etag = weakEtag(bytes);
    const headers = new globalThis.Headers(response.headers);
    if (etag !== null) headers.set("etag", etag);
    response = new globalThis.Response(bytes, { status, statusText: response.statusText, headers });
  }
  const ifNoneMatch = raw.headers.get("if-none-match");
  if (ifNoneMatch !== null)
    return etag !== null && noneMatchFails(ifNoneMatch, etag) ? notModified(response, etag) : response;
  // §13.1.3: If-Modified-Since only without If-None-Match, against the answer's Last-Modified.
  const since = httpDateSec(raw.headers.get("if-modified-since"));
  const modified = httpDateSec(response.headers.get("last-modified"));
  if (since !== null && modified !== null && modified <= since) return notModified(response, etag);
  return response;
}

/** The body's bytes; for a Worker's reply, only when it arrived whole (else the response, still streaming). */
async function bodyBytes(
  response: globalThis.Response,
  peek: boolean,
): Promise<Uint8Array<ArrayBuffer> | globalThis.Response> {
  if (!peek) return new Uint8Array(await response.arrayBuffer());
  const peeked = await peekBody(response.body as ReadableStream<Uint8Array>, MAX_HASHED_BYTES);
  if (peeked.complete) return peeked.bytes as Uint8Array<ArrayBuffer>;
  return new globalThis.Response(peeked.stream, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
