/**
 * Bun's own codecs (node:zlib is native in Bun; zstd included): one-shot for whole
 * bodies, and a streaming encoder that flushes after every chunk so a streamed body
 * reaches the client as it is produced, not when the encoder's window fills.
 */
import type * as Zlib from "node:zlib";
import type { Encoding } from "./negotiate.ts";

type Bytes = Uint8Array<ArrayBuffer>;

let loadedZlib: typeof Zlib | null = null;
/**
 * node:zlib costs about 7 MB of resident memory once loaded (measured: `bun` idle 25 MB, 32 MB
 * after importing it), so it is loaded on the first compressed body: an app without
 * compression never pays for it (docs/performance.md, "Idle memory").
 */
function zlib(): typeof Zlib {
  loadedZlib ??= require("node:zlib") as typeof Zlib;
  return loadedZlib;
}

/** Above this, whole bodies are compressed on Bun's thread pool instead of the event loop. */
const ASYNC_ABOVE = 1024 * 1024;

function zlibOptions(
  encoding: Encoding,
  level: number,
): Zlib.ZlibOptions & Zlib.BrotliOptions & Zlib.ZstdOptions {
  switch (encoding) {
    case "gzip":
      return { level };
    case "br":
      return { params: { [zlib().constants.BROTLI_PARAM_QUALITY]: level } };
    case "zstd":
      return { params: { [zlib().constants.ZSTD_c_compressionLevel]: level } };
  }
}

/** Compresses a whole body. */
export function compressSync(encoding: Encoding, data: Uint8Array, level: number): Bytes {
  const options = zlibOptions(encoding, level);
  let out: Buffer;
  if (encoding === "gzip") out = zlib().gzipSync(data, options);
  else if (encoding === "br") out = zlib().brotliCompressSync(data, options);
  else out = zlib().zstdCompressSync(data, options);
  return new Uint8Array(out.buffer as ArrayBuffer, out.byteOffset, out.byteLength);
}

/** Compresses a whole body; large ones off the event loop. */
export function compressWhole(encoding: Encoding, data: Uint8Array, level: number): Bytes | Promise<Bytes> {
  if (data.byteLength <= ASYNC_ABOVE) return compressSync(encoding, data, level);
  const options = zlibOptions(encoding, level);
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, out: Buffer) => {
      if (error) reject(error);
      else resolve(new Uint8Array(out.buffer as ArrayBuffer, out.byteOffset, out.byteLength));
    };
    if (encoding === "gzip") zlib().gzip(data, options, done);
    else if (encoding === "br") zlib().brotliCompress(data, options, done);
    else zlib().zstdCompress(data, options, done);
  });
}

/** A streaming encoder: `push(chunk)` gives what the client can decode up to that chunk; `finish()` the rest. */
export interface StreamEncoder {
  push(chunk: Uint8Array): Promise<Bytes>;
  finish(): Promise<Bytes>;
  destroy(): void;
}

export function streamEncoder(encoding: Encoding, level: number): StreamEncoder {
  const options = zlibOptions(encoding, level);
  const stream =
    encoding === "gzip"
      ? zlib().createGzip(options)
      : encoding === "br"
        ? zlib().createBrotliCompress(options)
        : zlib().createZstdCompress(options);
  let pending: Buffer[] = [];
  let failure: Error | null = null;
  stream.on("data", (chunk: Buffer) => pending.push(chunk));
  stream.on("error", (error: Error) => {
    failure = error;
  });
  const take = (): Bytes => {
    if (failure) throw failure;
    const out = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending);
    pending = [];
    return new Uint8Array(out.buffer as ArrayBuffer, out.byteOffset, out.byteLength);
  };
  const syncFlush =
    encoding === "br"
      ? zlib().constants.BROTLI_OPERATION_FLUSH
      : encoding === "zstd"
        ? zlib().constants.ZSTD_e_flush
        : zlib().constants.Z_SYNC_FLUSH;
  return {
    push(chunk) {
      return new Promise((resolve, reject) => {
        stream.write(chunk);
        // A sync flush ends the chunk on a byte boundary the client can decode right away.
        stream.flush(syncFlush, () => {
          try {
            resolve(take());
          } catch (error) {
            reject(error);
          }
        });
      });
    },
    finish() {
      return new Promise((resolve, reject) => {
        stream.once("end", () => {
          try {
            resolve(take());
          } catch (error) {
            reject(error);
          }
        });
        stream.once("error", reject);
        stream.end();
      });
    },
    destroy() {
      stream.destroy();
    },
  };
}
