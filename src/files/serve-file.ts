import { nodeFsPromises } from "../builtins.ts";
import { TEXT_PLAIN } from "../http/media-type.ts";
import { HttpError } from "../response/errors.ts";
import { contentDisposition } from "./content-disposition.ts";
import { parseRange } from "./range.ts";

export interface FileResponseOptions {
  /** Name for `Content-Disposition` (also used to guess the type when the path's extension says nothing). */
  fileName?: string;
  /** Overrides the type guessed from the extension. */
  contentType?: string;
  /** Sends `Content-Disposition`; defaults to `attachment` when `fileName` is given, else no header. */
  disposition?: "attachment" | "inline";
}

const OCTET_STREAM = "application/octet-stream";

/**
 * A response for a file on disk, streamed by Bun (sendfile where it can):
 * content type from the extension, `ETag` and `Last-Modified` with 304 on
 * revalidation, a single `Range` with 206 (416 when unsatisfiable),
 * `Content-Disposition` when a download name is given. HEAD gets the same
 * headers and Bun leaves the body out. A missing path or a directory throws
 * `HttpError(404)`.
 */
export async function fileResponse(
  path: string,
  request: globalThis.Request,
  opts: FileResponseOptions = {},
): Promise<globalThis.Response> {
  let size: number;
  let mtimeMs: number;
  try {
    const info = await nodeFsPromises().stat(path);
    if (!info.isFile()) throw new Error("not a regular file");
    size = info.size;
    mtimeMs = info.mtimeMs;
  } catch {
    throw new HttpError(404, "Not Found");
  }
  const file = Bun.file(path);
  const etag = `"${size.toString(16)}-${Math.round(mtimeMs * 1000).toString(16)}"`;
  const lastModified = new Date(mtimeMs).toUTCString();
  const validators: Record<string, string> = { etag, "last-modified": lastModified };

  const cacheable = request.method === "GET" || request.method === "HEAD";
  if (cacheable && notModified(request.headers, etag, mtimeMs)) {
    return new globalThis.Response(null, { status: 304, headers: validators });
  }

  const headers: Record<string, string> = {
    ...validators,
    "content-type": opts.contentType ?? guessType(file, opts.fileName),
    "accept-ranges": "bytes",
  };
  const disposition = opts.disposition ?? (opts.fileName !== undefined ? "attachment" : undefined);
  if (disposition !== undefined)
    headers["content-disposition"] = contentDisposition(opts.fileName ?? "", disposition);

  const rangeHeader = cacheable ? request.headers.get("range") : null;
  if (rangeHeader !== null && rangeStillValid(request.headers.get("if-range"), etag, lastModified)) {
    const range = parseRange(rangeHeader, size);
    if (range.kind === "unsatisfiable") {
      return new globalThis.Response("Range Not Satisfiable", {
        status: 416,
        headers: {
          ...validators,
          "content-range": `bytes */${size}`,
          "content-type": TEXT_PLAIN,
        },
      });
    }
    if (range.kind === "partial") {
      headers["content-range"] = `bytes ${range.start}-${range.end}/${size}`;
      return new globalThis.Response(file.slice(range.start, range.end + 1), { status: 206, headers });
    }
  }
  // An empty file is sent as an empty string: Bun answers an empty Blob with a bogus Content-Range.
  return new globalThis.Response(size === 0 ? "" : file, { status: 200, headers });
}

function guessType(file: Blob, fileName: string | undefined): string {
  const fromPath = file.type;
  if (fromPath !== "" && !fromPath.startsWith(OCTET_STREAM)) return fromPath;
  if (fileName !== undefined) {
    const fromName = Bun.file(fileName).type;
    if (fromName !== "") return fromName;
  }
  return OCTET_STREAM;
}

/** RFC 9110 §13.2.2: If-None-Match decides when present; If-Modified-Since only without it. */
function notModified(headers: globalThis.Headers, etag: string, mtimeMs: number): boolean {
  const ifNoneMatch = headers.get("if-none-match");
  if (ifNoneMatch !== null) {
    // Weak comparison: a W/ prefix on the client's tag does not matter.
    return ifNoneMatch
      .split(",")
      .map((tag) => tag.trim())
      .some((tag) => tag === "*" || tag.replace(/^W\//, "") === etag);
  }
  const ifModifiedSince = headers.get("if-modified-since");
  if (ifModifiedSince === null) return false;
  const since = Date.parse(ifModifiedSince);
  if (Number.isNaN(since)) return false;
  // HTTP dates have whole seconds.
  return Math.floor(mtimeMs / 1000) * 1000 <= since;
}

/** If-Range: the range applies only when the validator still matches (strong comparison), else send it all. */
function rangeStillValid(ifRange: string | null, etag: string, lastModified: string): boolean {
  if (ifRange === null) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith("W/")) return value === etag;
  const date = Date.parse(value);
  return !Number.isNaN(date) && date === Date.parse(lastModified);
}
