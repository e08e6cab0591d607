import { BadRequestError, HttpError } from "../errors.ts";

const EMPTY = new Uint8Array(0);
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function tooLarge(): HttpError {
  return new HttpError(413, "Payload Too Large");
}

/**
 * Reads a request body whole, never holding more than `maxBodySize` bytes:
 * a `Content-Length` over the limit is refused before reading (413); a
 * chunked body is read chunk by chunk and abandoned as soon as it passes the
 * limit (413). A body the client cuts short gives `BadRequestError` (400).
 */
export async function readBody(request: globalThis.Request, maxBodySize: number): Promise<Uint8Array> {
  if (request.bodyUsed) throw new Error("readBody: the request body was already read");
  const lengthHeader = request.headers.get("content-length");
  if (lengthHeader !== null) {
    if (!/^\d+$/.test(lengthHeader.trim())) throw new BadRequestError("Invalid Content-Length header");
    if (Number(lengthHeader) > maxBodySize) throw tooLarge();
  }
  if (lengthHeader !== null) {
    if (lengthHeader.trim() === "0") return EMPTY;
    // Bun's HTTP parser frames the body by Content-Length, so the native whole-body read is safe and fastest
    // (and touching `request.body` first would make Bun build a stream this path never uses).
    let bytes: Uint8Array;
    try {
      bytes = await request.bytes();
    } catch {
      throw new BadRequestError("The request body was cut short");
    }
    if (bytes.length > maxBodySize) throw tooLarge();
    return bytes;
  }
  const stream = request.body;
  if (stream === null) return EMPTY;
  return readLimited(stream, maxBodySize);
}

async function readLimited(stream: ReadableStream<Uint8Array>, maxBodySize: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let result: Awaited<ReturnType<typeof reader.read>>;
    try {
      result = await reader.read();
    } catch {
      throw new BadRequestError("The request body was cut short");
    }
    if (result.done) break;
    total += result.value.length;
    if (total > maxBodySize) {
      // Stop reading: the rest of the upload is never buffered.
      reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(result.value);
  }
  if (chunks.length === 0) return EMPTY;
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** The spec's `request.body`: a string when the bytes are valid UTF-8, else the bytes; `""` when empty. */
export function decodeBody(bytes: Uint8Array): string | Uint8Array {
  if (bytes.length === 0) return "";
  try {
    return utf8.decode(bytes);
  } catch {
    return bytes;
  }
}
