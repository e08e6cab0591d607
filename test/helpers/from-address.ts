/**
 * HTTP/1.1 requests from a chosen local address: on Linux every 127.x.y.z is
 * the loopback interface, so a socket bound to 127.0.0.2 reaches a server on
 * 127.0.0.1 as a second client with an address of its own (what the server's
 * `requestIP` reports). `fetch` cannot choose its source address; a
 * `node:net` socket with `localAddress` can. One request per connection
 * (`Connection: close`), the answer read until the server closes.
 */
import { connect } from "node:net";

export interface RawAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/** Decodes a `Transfer-Encoding: chunked` body. */
function unchunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const lineEnd = body.indexOf("\r\n", at);
    if (lineEnd === -1) break;
    const size = Number.parseInt(body.subarray(at, lineEnd).toString("latin1"), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

export function requestFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  const target = new URL(url);
  const body = init.body === undefined ? undefined : Buffer.from(init.body);
  const lines = [
    `${init.method ?? "GET"} ${target.pathname}${target.search} HTTP/1.1`,
    `host: ${target.host}`,
  ];
  for (const [name, value] of Object.entries(init.headers ?? {})) lines.push(`${name}: ${value}`);
  lines.push("connection: close");
  if (body !== undefined) lines.push(`content-length: ${body.length}`);
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: target.hostname, port: Number(target.port), localAddress });
    // Written, not ended: a half-closed connection may be dropped before a slow answer is sent.
    socket.on("connect", () => socket.write(body === undefined ? head : Buffer.concat([head, body])));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const whole = Buffer.concat(chunks);
      const split = whole.indexOf("\r\n\r\n");
      if (split === -1) return reject(new Error(`no HTTP answer from ${url} (from ${localAddress})`));
      const [statusLine = "", ...fields] = whole.subarray(0, split).toString("latin1").split("\r\n");
      const headers = new Headers();
      for (const field of fields) {
        const colon = field.indexOf(":");
        if (colon > 0) headers.append(field.slice(0, colon).trim(), field.slice(colon + 1).trim());
      }
      const rest = whole.subarray(split + 4);
      const chunked = headers.get("transfer-encoding")?.toLowerCase() === "chunked";
      resolve({
        status: Number(statusLine.split(" ")[1]),
        headers,
        body: (chunked ? unchunk(rest) : rest).toString("utf8"),
      });
    });
  });
}
