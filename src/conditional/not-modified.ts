/**
 * The 304 answer (RFC 9110 §15.4.5): no body, and of the 200's headers the ones a cache uses to
 * update what it stored (ETag, Cache-Control, Expires, Vary, Content-Location, Date, Last-Modified)
 * and everything that is not about the representation (Set-Cookie, CORS, request ids, timings).
 * Only the representation's own metadata is left out.
 */
const REPRESENTATION = new Set([
  "content-type",
  "content-length",
  "content-encoding",
  "content-language",
  "content-range",
  "transfer-encoding",
]);

export function notModified(response: globalThis.Response, etag: string | null): globalThis.Response {
  const headers = new globalThis.Headers();
  for (const [name, value] of response.headers) {
    if (REPRESENTATION.has(name)) continue;
    if (name === "set-cookie") continue; // appended below, one by one (entries() joins nothing for them)
    headers.append(name, value);
  }
  for (const cookie of response.headers.getSetCookie()) headers.append("set-cookie", cookie);
  if (etag !== null) headers.set("etag", etag);
  return new globalThis.Response(null, { status: 304, headers });
}
