/**
 * The app's bounds on streamed uploads (`new Webfw(path, { uploads })`, docs/uploads.md#bounds):
 * how many may be in flight in one process, and how many of their bytes.
 */

export interface UploadBounds {
  /**
   * Streamed uploads (`{ body: "stream" }` routes) in flight in this process at once; one more gets
   * 503 with `Retry-After` before a byte of its body is read. Default 64.
   */
  maxInFlight?: number;
  /**
   * Bytes of streamed upload bodies in flight in this process at once: a declared `Content-Length`
   * is reserved whole before reading (refused with 503 when it does not fit), a chunked body is
   * counted as it arrives (stopped with 503 when it crosses the total). Default 8 GiB.
   */
  maxBytesInFlight?: number;
}

export type ResolvedUploadBounds = Required<UploadBounds>;

export const DEFAULT_UPLOADS_IN_FLIGHT = 64;
export const DEFAULT_UPLOAD_BYTES_IN_FLIGHT = 8 * 1024 * 1024 * 1024;

export function resolveUploadBounds(given: UploadBounds = {}): ResolvedUploadBounds {
  const bounds = {
    maxInFlight: given.maxInFlight ?? DEFAULT_UPLOADS_IN_FLIGHT,
    maxBytesInFlight: given.maxBytesInFlight ?? DEFAULT_UPLOAD_BYTES_IN_FLIGHT,
  };
  for (const [name, value] of Object.entries(bounds)) {
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new TypeError(`uploads.${name} must be a positive integer, got ${String(value)}`);
  }
  return bounds;
}
