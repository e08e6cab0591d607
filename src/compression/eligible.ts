/**
 * What may be compressed: by content type (text and structured text, never images,
 * video, archives or event streams) and by the response's own headers (a coding
 * already there, `no-transform`, partial content, no body).
 */

const COMPRESSIBLE_APPLICATION = new Set([
  "application/json",
  "application/javascript",
  "application/x-javascript",
  "application/ecmascript",
  "application/xml",
  "application/x-ndjson",
  "application/wasm",
  "application/x-www-form-urlencoded",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/rtf",
  "application/x-sh",
  "application/graphql",
  "application/vnd.ms-fontobject",
]);
const COMPRESSIBLE_OTHER = new Set([
  "image/svg+xml",
  "image/x-icon",
  "image/vnd.microsoft.icon",
  "image/bmp",
  "font/ttf",
  "font/otf",
  "font/eot",
]);

const typeCache = new Map<string, boolean>();

/** Whether a body of this `Content-Type` is worth compressing. Event streams never are (they must flow unbuffered). */
export function isCompressibleType(contentType: string | null): boolean {
  if (contentType === null) return false;
  let known = typeCache.get(contentType);
  if (known === undefined) {
    known = classify(contentType);
    if (typeCache.size < 512) typeCache.set(contentType, known);
  }
  return known;
}

function classify(contentType: string): boolean {
  const type = (contentType.split(";")[0] ?? "").trim().toLowerCase();
  if (type === "text/event-stream") return false;
  if (type.startsWith("text/")) return true;
  if (COMPRESSIBLE_APPLICATION.has(type) || COMPRESSIBLE_OTHER.has(type)) return true;
  return type.endsWith("+json") || type.endsWith("+xml") || type.endsWith("+yaml");
}

/**
 * Why a response is sent as it is, or null when it may be compressed. Checked before the
 * body is touched; the size threshold is checked later, once the size is known.
 */
export function skipReason(request: globalThis.Request, response: globalThis.Response): string | null {
  const status = response.status;
  if (status < 200 || status === 204 || status === 205 || status === 304) return "no body";
  if (status === 206 || response.headers.has("content-range")) return "partial content";
  if (request.headers.has("range")) return "a Range request";
  if (response.body === null) return "no body";
  if (response.headers.has("content-encoding")) return "already encoded";
  const cacheControl = response.headers.get("cache-control");
  if (cacheControl !== null && /(?:^|,)\s*no-transform\s*(?:,|$)/i.test(cacheControl)) return "no-transform";
  if (!isCompressibleType(response.headers.get("content-type"))) return "not a compressible type";
  return null;
}
