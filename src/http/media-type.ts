/**
 * Media types: the spellings webfw writes on the answers it makes, and the one reading of a
 * `Content-Type` every parser shares.
 *
 * The text and JSON spellings are Bun's own. A Web `Response` made from a string with no headers
 * gets `text/plain;charset=utf-8` from Bun, and `Response.json(value)` gets
 * `application/json;charset=utf-8`, without a Headers object at all; passing any header (even the
 * same type, spelled `text/plain; charset=utf-8`) makes Bun build and copy one per answer and
 * write it out header by header. That was 10 % of a bare `GET /` and 4 % of a small `POST /json`
 * in wall-clock (docs/performance.md, "Media types"). Both spellings mean the same type to every
 * client (RFC 9110 §8.3.1: whitespace around `;` is optional); `charset` on JSON is ignored by
 * compliant readers (RFC 8259 §11) and is what Bun, Elysia and the Fetch `Response.json` of Bun send.
 */

/** Text answers (handler strings, plain-text errors). */
export const TEXT_PLAIN = "text/plain;charset=utf-8";
/** JSON answers made from a handler's value (objects, arrays, numbers, booleans, `json()`). */
export const JSON_UTF8 = "application/json;charset=utf-8";
/** Bytes of unknown type. */
export const BINARY = "application/octet-stream";

/** The media type of a `Content-Type` value: lower-case, parameters and whitespace dropped; `""` for none. */
export function mediaType(contentType: string | null | undefined): string {
  if (contentType === null || contentType === undefined) return "";
  const semi = contentType.indexOf(";");
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** `application/json` and the `+json` types (`application/problem+json`, `application/ld+json`, …), from a media type. */
export function isJsonMediaType(type: string): boolean {
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}
