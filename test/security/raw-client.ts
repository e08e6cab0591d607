/**
 * A raw TCP client on `Bun.connect`: sends bytes exactly as given (fetch
 * would refuse or normalise most malformed input before it left the process)
 * and reads what the server answers, noting whether it closed the connection.
 */

export interface RawReply {
  /** Status of the first response; 0 when the server answered nothing. */
  status: number;
  /** Lower-cased header names of the first response (a repeated header keeps its last value). */
  headers: Record<string, string>;
  /** The body of the first response, decoded as latin1 (bytes stay bytes). */
  body: string;
  /** Everything received, as latin1. */
  raw: string;
  /** The server closed the connection (or reset it) before the wait ended. */
  closed: boolean;
  /** Number of `HTTP/1.x NNN` status lines received (pipelined answers). */
  responses: number;
}

export interface RawOptions {
  /** Give up waiting after this long (the reply so far is returned). Default 3000 ms. */
  waitMs?: number;
  /** Pause between chunks when `request` is an array (slow or cut-short clients). Default 0. */
  gapMs?: number;
  /** Keep reading until the server closes instead of stopping at the first complete response. */
  untilClose?: boolean;
}

const encoder = new TextEncoder();

function bytesOf(part: string | Uint8Array): Uint8Array {
  // latin1 for strings: every char below 256 is exactly one byte, so tests can write raw bytes in a string.
  return typeof part === "string" ? Buffer.from(part, "latin1") : part;
}

/** Sends `request` (one buffer, or chunks sent one by one) and reads the reply. */
export async function rawExchange(
  port: number,
  request: string | Uint8Array | (string | Uint8Array)[],
  options: RawOptions = {},
): Promise<RawReply> {
  const waitMs = options.waitMs ?? 3000;
  const chunks: Buffer[] = [];
  let closed = false;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const check = () => {
    if (!options.untilClose && responseComplete(Buffer.concat(chunks).toString("latin1"))) done();
  };
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_socket, data) {
        chunks.push(Buffer.from(data));
        check();
      },
      close() {
        closed = true;
        done();
      },
      end() {
        closed = true;
        done();
      },
      error() {
        closed = true;
        done();
      },
    },
  });
  const timer = setTimeout(done, waitMs);
  try {
    const parts = Array.isArray(request) ? request : [request];
    for (const [index, part] of parts.entries()) {
      if (closed) break;
      writeAll(socket, bytesOf(part));
      if (options.gapMs && index < parts.length - 1) await Bun.sleep(options.gapMs);
    }
    await finished;
  } finally {
    clearTimeout(timer);
    socket.end();
  }
  return parseReply(Buffer.concat(chunks).toString("latin1"), closed);
}

function writeAll(socket: Bun.Socket<undefined>, bytes: Uint8Array): void {
  let offset = 0;
  // Bun's socket.write may take less than everything; loopback buffers drain quickly.
  for (let spins = 0; offset < bytes.length && spins < 10_000; spins++) {
    const written = socket.write(bytes.subarray(offset));
    if (written < 0) return;
    offset += written;
  }
}

/** A GET with `Connection: close`, for "the server still serves" checks. */
export function rawGet(port: number, path: string, headers = ""): Promise<RawReply> {
  return rawExchange(port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${headers}\r\n`);
}

/** A request with a body and its Content-Length computed from the bytes. */
export function rawPost(
  port: number,
  path: string,
  body: string | Uint8Array,
  headers = "",
  method = "POST",
): Promise<RawReply> {
  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  const head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: ${bytes.length}\r\n${headers}\r\n`;
  return rawExchange(port, [Buffer.concat([Buffer.from(head, "latin1"), bytes])]);
}

function responseComplete(raw: string): boolean {
  const headEnd = raw.indexOf("\r\n\r\n");
  if (headEnd === -1) return false;
  const head = raw.slice(0, headEnd);
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  if (status === 101 || status === 204 || status === 304) return true;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) return raw.length - headEnd - 4 >= Number(length[1]);
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) return raw.endsWith("0\r\n\r\n");
  return false;
}

export function parseReply(raw: string, closed: boolean): RawReply {
  const headEnd = raw.indexOf("\r\n\r\n");
  const head = headEnd === -1 ? raw : raw.slice(0, headEnd);
  const lines = head.split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "")?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = headEnd === -1 ? "" : raw.slice(headEnd + 4);
  const length = headers["content-length"];
  if (length !== undefined) body = body.slice(0, Number(length));
  else if (headers["transfer-encoding"]?.toLowerCase() === "chunked") body = dechunk(body);
  const responses = raw.match(/HTTP\/1\.[01] \d{3}/g)?.length ?? 0;
  return { status, headers, body, raw, closed, responses };
}

function dechunk(text: string): string {
  let out = "";
  let pos = 0;
  for (;;) {
    const lineEnd = text.indexOf("\r\n", pos);
    if (lineEnd === -1) return out;
    const size = Number.parseInt(text.slice(pos, lineEnd), 16);
    if (!Number.isFinite(size) || size === 0) return out;
    out += text.slice(lineEnd + 2, lineEnd + 2 + size);
    pos = lineEnd + 2 + size + 2;
  }
}
