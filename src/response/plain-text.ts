/**
 * Text answers made without a Headers object (src/http/media-type.ts says why it pays). Bun writes
 * `Content-Type: text/plain;charset=utf-8` on the wire for a string body that has none, but its
 * `Response.headers` does not show it. Such responses carry a mark (a symbol property: a WeakSet
 * entry cost 100–150 ns, the property nothing measurable) so that what reads the type of a Web
 * response (compression, the typed client, MCP route tools) still sees it, and `app.request()`
 * writes it into the headers its callers get.
 */
import { TEXT_PLAIN } from "../http/media-type.ts";

/** The mark itself, a property set by `markImpliedText` and `plainTextResponse`. */
export const PLAIN_TEXT: unique symbol = Symbol("webfw.plainText");
type Marked = globalThis.Response & { [PLAIN_TEXT]?: true };

/** A `text/plain;charset=utf-8` response with no Headers object; `init` may carry a status or other headers. */
export function plainTextResponse(text: string, init?: ResponseInit): globalThis.Response {
  const response: Marked =
    init === undefined ? new globalThis.Response(text) : new globalThis.Response(text, init);
  response[PLAIN_TEXT] = true;
  return response;
}

/** Marks `response`, a string body without a `Content-Type`, as such a text answer. */
export function markImpliedText(response: globalThis.Response): globalThis.Response {
  (response as Marked)[PLAIN_TEXT] = true;
  return response;
}

/** Whether `response` is a marked text answer whose type Bun adds on the wire (`copyResponse` keeps it). */
export function isImpliedText(response: globalThis.Response): boolean {
  return (response as Marked)[PLAIN_TEXT] === true;
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
    // Immutable headers (cannot happen for a response made here, kept for safety): a copy.
    const headers = new globalThis.Headers(response.headers);
    headers.set("content-type", TEXT_PLAIN);
    return new globalThis.Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  }
}
