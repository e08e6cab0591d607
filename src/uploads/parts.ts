/**
 * `request.parts()`: the parts of a `multipart/form-data` body as they arrive from the
 * socket (routes with `{ body: "stream" }`). One part at a time: asking for the next part
 * skips what the handler did not read of the current one. Limits per part, per count and
 * in total answer 413; malformed framing or headers 400 (the same messages as the
 * whole-body parser, whose header parsing this shares).
 */

import { parseHeaderValue } from "../body/header-params.ts";
import { describePart, malformed, multipartBoundary } from "../body/multipart.ts";
import { HttpError } from "../response/errors.ts";
import type { UploadTicket } from "./gate.ts";
import type { UploadLimits } from "./limits.ts";
import { saveStream } from "./save.ts";
import { MultipartScanner } from "./scanner.ts";

const utf8 = new TextDecoder("utf-8");

/** One part of a streamed multipart body. Read it (once) before asking for the next part. */
export class Part {
  /** The form field's name. */
  readonly name: string;
  /** The file name sent by the client (last path segment only), or null for a text field. */
  readonly fileName: string | null;
  /** The part's `Content-Type` (`application/octet-stream` for files without one, `text/plain` for fields). */
  readonly contentType: string;
  /** Every header of the part, lower-cased names. */
  readonly headers: ReadonlyMap<string, string>;
  private taken = false;

  /** @internal */
  constructor(
    description: { name: string; fileName: string | null; contentType: string; headers: Map<string, string> },
    private readonly source: PartSource,
  ) {
    this.name = description.name;
    this.fileName = description.fileName;
    this.contentType = description.contentType;
    this.headers = description.headers;
  }

  /** The part's bytes as they arrive (backpressured: nothing more is read from the socket than you read). */
  stream(): ReadableStream<Uint8Array> {
    const chunks = this.chunks();
    return new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          try {
            const { value, done } = await chunks.next();
            if (done) controller.close();
            else controller.enqueue(value);
          } catch (error) {
            controller.error(error);
          }
        },
        async cancel() {
          await chunks.return?.(undefined);
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** The whole part in memory (bounded by the part limits). */
  async bytes(): Promise<Uint8Array> {
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.chunks()) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  /** The whole part as UTF-8 text. */
  async text(): Promise<string> {
    return utf8.decode(await this.bytes());
  }

  /**
   * Streams the part into the file at `path` (replaced if it exists) and resolves with its size.
   * The file appears only once the whole part has arrived: a client that disconnects, or a limit
   * passed, leaves nothing behind (the error is rethrown).
   */
  saveTo(path: string): Promise<number> {
    return saveStream(this.chunks(), path);
  }

  private chunks(): AsyncGenerator<Uint8Array, void, undefined> {
    if (this.taken) throw new Error(`part "${this.name}" was already read`);
    this.taken = true;
    return this.source.chunks(this);
  }
}

/** What a Part reads from: the scanner, while the part is current. */
interface PartSource {
  chunks(part: Part): AsyncGenerator<Uint8Array, void, undefined>;
}

/**
 * The parts of `raw`'s multipart body, read from its stream as they arrive; `ticket` counts the
 * bytes against the app's upload bounds (src/uploads/gate.ts).
 */
export function streamParts(
  raw: globalThis.Request,
  limits: UploadLimits,
  ticket: UploadTicket | null = null,
): AsyncIterableIterator<Part> {
  let scanner: MultipartScanner | null = null;
  let current: Part | null = null;
  /** Bytes of the current part so far, read or skipped: the per-part limit counts both. */
  let currentSize = 0;
  let count = 0;

  const open = (): MultipartScanner => {
    const contentType = raw.headers.get("content-type");
    const type = contentType === null ? null : parseHeaderValue(contentType)?.value;
    if (type !== "multipart/form-data") {
      throw new HttpError(415, "Unsupported Media Type: send multipart/form-data", {
        "accept-post": "multipart/form-data",
      });
    }
    const boundary = multipartBoundary(contentType as string);
    if (raw.body === null) throw malformed("the body is empty");
    if (raw.bodyUsed)
      throw new TypeError('request.parts(): the body was already read (give the route { body: "stream" })');
    return new MultipartScanner(raw.body.getReader(), boundary, limits.maxTotalSize, ticket);
  };

  const source: PartSource = {
    async *chunks(part) {
      for (;;) {
        if (current !== part)
          throw new Error(`part "${part.name}" has passed: read a part before asking for the next`);
        const chunk = await take(part);
        if (chunk === null) return;
        yield chunk;
      }
    },
  };

  const next = async (): Promise<IteratorResult<Part>> => {
    scanner ??= open();
    for (;;) {
      // Skipping the rest of the current part still counts against its limit.
      if (current !== null) await drain(current);
      current = null;
      const headerText = await scanner.nextPart();
      if (headerText === null) return { done: true, value: undefined };
      count++;
      if (count > limits.maxParts) {
        throw new HttpError(413, `Too many multipart parts (limit ${limits.maxParts})`, {
          connection: "close",
        });
      }
      const description = describePart(headerText, count, limits.maxFieldSize);
      if (description.fileName === "") {
        // A file input left empty: no file, as in the whole-body parser.
        if (await scanner.partIsEmpty()) {
          await scanner.nextChunk();
          continue;
        }
        throw malformed(`part ${count} is a file without a file name`);
      }
      current = new Part(description, source);
      currentSize = 0;
      return { done: false, value: current };
    }
  };

  const take = async (part: Part): Promise<Uint8Array | null> => {
    const chunk = await (scanner as MultipartScanner).nextChunk();
    if (chunk === null) return null;
    currentSize += chunk.byteLength;
    const limit = part.fileName === null ? limits.maxFieldSize : limits.maxFileSize;
    if (currentSize > limit) throw tooLarge(part, limit);
    return chunk;
  };

  const drain = async (part: Part): Promise<void> => {
    while ((await take(part)) !== null) {}
  };

  const iterator: AsyncIterableIterator<Part> = {
    next,
    async return() {
      // The handler stopped early (break): nothing more is read.
      scanner?.cancel();
      current = null;
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

function tooLarge(part: Part, limit: number): HttpError {
  const what = part.fileName === null ? `Form field "${part.name}"` : `Uploaded file "${part.fileName}"`;
  return new HttpError(413, `${what} too large (limit ${limit} bytes)`, { connection: "close" });
}
