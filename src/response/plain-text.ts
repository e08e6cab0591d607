/**
 * Text answers made without a Headers object (src/http/media-type.ts says why it pays). Bun writes
 * `Content-Type: text/plain;charset=utf-8` on the wire for a string body that has none, but its
 * `Response.headers` does not show it. Such responses carry a mark (a symbol property: a WeakSet
 * entry cost 100–150 ns, the property nothing measurable) so that what reads the type of a Web
 * response (compression, the typed client, MCP route tools) still sees it, and `app.request()`
 * writes it into the headers its callers get.
 */
import { TEXT_PLAIN } from "../http/media-type.ts";
import { isStreamed, markStreamed } from "./streamed.ts";

const PLAIN_TEXT = Symbol("webfw.plainText");
type Marked = globalThis.Response & { [PLAIN_TEXT]?: true };

/** A `text/plain;charset=utf-8` response with no Headers object; `init` may carry a status or other headers. */
export function plainTextResponse(text: string, init?: ResponseInit): globalThis.Response {
  const response: Marked =
    init === undefined ? new globalThis.Response(text) : new globalThis.Response(text, init);
  response[PLAIN_TEXT] = true;
  return response;
}

/** The `Content-Type` of a Web response, including the one Bun adds to a marked text answer. */
export function contentTypeOf(response: globalThis.Response): string | null {
  const type = response.headers.get("content-type");
  if (type !== null || (response as Marked)[PLAIN_TEXT] !== true) return type;
  return TEXT_PLAIN;
}

/** `response` with the implied text type written into its headers (for in-process callers). */
export function withVisibleContentType(response: globalThis.Response): globalThis.Response {
  if ((response as Marked)[PLAIN_TEXT] !== true || response.headers.has("content-type")) return response;
  try {
    response.headers.set("content-type", TEXT_PLAIN);
    return response;
  } catch {
    // Immutable headers (cannot happen for a response made here, kept for safety).
    return copyResponse(response);
  }
}

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
  if ((response as Marked)[PLAIN_TEXT] === true && !headers.has("content-type"))
    headers.set("content-type", TEXT_PLAIN);
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
