/**
 * Copies of Web responses: the one way the framework copies one (`copyResponse`), and a header set
 * on a finished answer (`withHeader`), which copies only when the headers are immutable.
 */
import { TEXT_PLAIN } from "../http/media-type.ts";
import { isImpliedText } from "./plain-text.ts";
import { isStreamed, markStreamed } from "./streamed.ts";

/**
 * `response` with `name: value` set on the finished answer, the way layers outside a route (request
 * ids, rate limits) add theirs: for a header-less text answer this is the cheapest Bun has (cheaper
 * than building it with a Headers object: docs/performance.md, "Headers after the fact"). Immutable
 * headers (a response passed through from `fetch`) get a copy sharing the body; a WebSocket upgrade
 * (status 101, src/websocket/install.ts) hands Bun no response, so nothing is written on it.
 */
export function withHeader(response: globalThis.Response, name: string, value: string): globalThis.Response {
  if (response.status === 101) return response;
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    const copy = copyResponse(response);
    copy.headers.set(name, value);
    return copy;
  }
}

/**
 * The one way the framework copies a Web response (a new status, no body for HEAD, headers to
 * change when the original's are immutable): the copy shares the body stream, has its own mutable
 * headers, and those carry a text answer's implied type, which `new Response(r.body, r)` would lose.
 * `body`: `false` drops the body (a streamed one is cancelled, so its producer stops and the
 * request's background tasks start), a stream replaces it; a streamed body keeps its mark.
 */
export function copyResponse(
  response: globalThis.Response,
  options: { status?: number; body?: boolean | ReadableStream<Uint8Array> } = {},
): globalThis.Response {
  const headers = new globalThis.Headers(response.headers);
  if (isImpliedText(response) && !headers.has("content-type")) headers.set("content-type", TEXT_PLAIN);
  const status = options.status ?? response.status;
  // A new status gets its own reason phrase (Bun's default), not the old one.
  const init: ResponseInit =
    status === response.status ? { status, statusText: response.statusText, headers } : { status, headers };
  const streamed = isStreamed(response);
  if (options.body === false) {
    if (streamed) response.body?.cancel().catch(() => {});
    return new globalThis.Response(null, init);
  }
  const body = options.body instanceof ReadableStream ? options.body : response.body;
  const copy = new globalThis.Response(body, init);
  return streamed ? markStreamed(copy) : copy;
}
