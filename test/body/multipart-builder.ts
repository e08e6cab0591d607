/** Builds multipart/form-data bodies for tests, byte by byte, the way browsers and curl do. */
export interface TestPart {
  name: string;
  value: string | Uint8Array;
  fileName?: string;
  contentType?: string;
}

const encoder = new TextEncoder();

export function buildMultipart(
  parts: TestPart[],
  boundary = "----webfwTestBoundary7MA4YWxkTrZu0gW",
): Uint8Array<ArrayBuffer> {
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.fileName !== undefined) head += `; filename="${part.fileName}"`;
    head += "\r\n";
    if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`;
    head += "\r\n";
    chunks.push(encoder.encode(head));
    chunks.push(typeof part.value === "string" ? encoder.encode(part.value) : part.value);
    chunks.push(encoder.encode("\r\n"));
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  return concat(chunks);
}

export function concat(chunks: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

export const BOUNDARY = "----webfwTestBoundary7MA4YWxkTrZu0gW";
export const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** Deterministic pseudo-random bytes (xorshift), so a failure can be reproduced. */
export function randomBytes(length: number, seed = 0x2545f491): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}
