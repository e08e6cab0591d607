/**
 * Compressing one response for one request (docs/compression.md): negotiate, check that the
 * response may be compressed, then either compress the whole body (when it is all in
 * memory) or compress the stream as it flows, flushing after every chunk.
 */
import { withVisibleContentType } from "../response/plain-text.ts";
import { appendVary } from "../response/vary.ts";
import { compressWhole, type StreamEncoder, streamEncoder } from "./codecs.ts";
import { skipReason } from "./eligible.ts";
import type { Encoding, NegotiationCache } from "./negotiate.ts";
import type { ResolvedCompression } from "./options.ts";

type WebResponse = globalThis.Response;
type Bytes = Uint8Array<ArrayBuffer>;
type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;

/**
 * Bytes collected before a body that is still arriving is treated as a stream. A body in
 * memory (a string, JSON, bytes) arrives at once, well within one turn of the event loop.
 */
const COLLECT_LIMIT = 64 * 1024;

export interface Compressor {
  settings: ResolvedCompression;
  negotiation: NegotiationCache;
}

/** The response to send: compressed, or the original (with `Vary` when it could have been). */
export function compressResponse(
  compressor: Compressor,
  request: globalThis.Request,
  response: WebResponse,
): WebResponse | Promise<WebResponse> {
  if (!(response instanceof globalThis.Response)) return response;
  // Its headers are copied into the compressed answer: a text answer's implied type must be among them.
  response = withVisibleContentType(response);
  if (skipReason(request, response) !== null) return response;
  const { settings } = compressor;
  const length = response.headers.get("content-length");
  if (length !== null && Number(length) < settings.threshold) return response;
  const negotiated = compressor.negotiation.get(request.headers.get("accept-encoding"));
  const encoding = negotiated.ranked[0];
  if (encoding === undefined) return withVary(response);
  // HEAD goes the same way: Bun drops the body but keeps the headers it implies (Content-Length).
  // Below the threshold, unless the client refused identity.
  const threshold = negotiated.identityAllowed ? settings.threshold : 0;
  return compressBody(
    response,
    response.body as ReadableStream<Uint8Array>,
    encoding,
    settings.level[encoding],
    threshold,
  );
}

async function compressBody(
  response: WebResponse,
  body: ReadableStream<Uint8Array>,
  encoding: Encoding,
  level: number,
  threshold: number,
): Promise<WebResponse> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let pending: Promise<ReadResult> | null = null;
  let ended = false;
  try {
    // The first chunk is waited for (nothing can be sent before it); the rest only while it
    // keeps arriving within the same turn of the event loop, so a real stream is never held up.
    let next: ReadResult | typeof LATER = await reader.read();
    for (;;) {
      if (next === LATER) break;
      if (next.done) {
        ended = true;
        break;
      }
      chunks.push(next.value);
      size += next.value.byteLength;
      if (size >= COLLECT_LIMIT) break;
      const read = reader.read();
      pending = read;
      next = await withinTurn(read);
      if (next !== LATER) pending = null;
    }
  } catch (error) {
    reader.releaseLock();
    throw error;
  }
  if (ended) {
    const whole = concat(chunks, size);
    if (size < threshold) {
      return new globalThis.Response(whole, {
        status: response.status,
        statusText: response.statusText,
        headers: withVaryHeaders(response.headers),
      });
    }
    const compressed = await compressWhole(encoding, whole, level);
    return new globalThis.Response(compressed, {
      status: response.status,
      statusText: response.statusText,
      headers: encodedHeaders(response.headers, encoding),
    });
  }
  return new globalThis.Response(encodedStream(reader, chunks, pending, streamEncoder(encoding, level)), {
    status: response.status,
    statusText: response.statusText,
    headers: encodedHeaders(response.headers, encoding),
  });
}

const LATER = Symbol("later");

/** The read's result if it settles before the event loop's next turn, else LATER. */
function withinTurn<T>(read: Promise<T>): Promise<T | typeof LATER> {
  return new Promise((resolve, reject) => {
    const timer = setImmediate(() => resolve(LATER));
    read.then(
      (value) => {
        clearImmediate(timer);
        resolve(value);
      },
      (error) => {
        clearImmediate(timer);
        reject(error);
      },
    );
  });
}

/** The rest of the body, compressed chunk by chunk; cancelling it cancels the source. */
function encodedStream(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  head: Uint8Array[],
  pending: Promise<ReadResult> | null,
  encoder: StreamEncoder,
): ReadableStream<Uint8Array> {
  let first = true;
  let waiting = pending;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (first) {
            first = false;
            const start = await encoder.push(
              concat(
                head,
                head.reduce((n, c) => n + c.byteLength, 0),
              ),
            );
            if (start.byteLength > 0) {
              controller.enqueue(start);
              return;
            }
          }
          for (;;) {
            const result = await (waiting ?? reader.read());
            waiting = null;
            if (result.done) {
              const tail = await encoder.finish();
              if (tail.byteLength > 0) controller.enqueue(tail);
              controller.close();
              return;
            }
            const out = await encoder.push(result.value);
            if (out.byteLength > 0) {
              controller.enqueue(out);
              return;
            }
          }
        } catch (error) {
          encoder.destroy();
          void reader.cancel(error).catch(() => {});
          controller.error(error);
        }
      },
      cancel(reason) {
        encoder.destroy();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

function concat(chunks: Uint8Array[], size: number): Bytes {
  if (chunks.length === 1) {
    const only = chunks[0] as Uint8Array;
    if (only.buffer instanceof ArrayBuffer) return only as Bytes;
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Headers of the encoded representation: the coding, `Vary`, no length, a weak ETag. */
function encodedHeaders(original: globalThis.Headers, encoding: Encoding): globalThis.Headers {
  const headers = new globalThis.Headers(original);
  headers.set("content-encoding", encoding);
  headers.delete("content-length");
  appendVary(headers, "Accept-Encoding");
  // The bytes differ from the identity form's: a strong validator would claim they are the same.
  const etag = headers.get("etag");
  if (etag !== null && !etag.startsWith("W/")) headers.set("etag", `W/${etag}`);
  return headers;
}

function withVaryHeaders(original: globalThis.Headers): globalThis.Headers {
  const headers = new globalThis.Headers(original);
  appendVary(headers, "Accept-Encoding");
  return headers;
}

/** The response unchanged but for `Vary: Accept-Encoding` (copied when its headers are immutable). */
function withVary(response: WebResponse): WebResponse {
  try {
    appendVary(response.headers, "Accept-Encoding");
    return response;
  } catch {
    return new globalThis.Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers: withVaryHeaders(response.headers),
    });
  }
}
