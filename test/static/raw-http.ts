import { connect } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  raw: string;
}

/**
 * Sends bytes exactly as given (fetch would normalise `..`, `%2e` and
 * backslashes before they reach the server) and reads until the server
 * closes or `waitMs` passes with the response complete.
 */
export function rawRequest(port: number, request: string | Uint8Array, waitMs = 2000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks).toString("latin1");
      resolve(parseRaw(raw));
    };
    const timer = setTimeout(finish, waitMs);
    socket.on("data", (d: Buffer) => {
      chunks.push(d);
      if (isComplete(Buffer.concat(chunks).toString("latin1"))) finish();
    });
    socket.on("end", finish);
    socket.on("close", finish);
    socket.on("error", (e) => {
      if (chunks.length > 0) finish();
      else if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(e);
      }
    });
    socket.write(request);
  });
}

export function rawGet(port: number, path: string, extraHeaders = ""): Promise<RawResponse> {
  return rawRequest(
    port,
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${extraHeaders}\r\n`,
  );
}

function isComplete(raw: string): boolean {
  const headEnd = raw.indexOf("\r\n\r\n");
  if (headEnd === -1) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(raw.slice(0, headEnd));
  if (length) return raw.length - headEnd - 4 >= Number(length[1]);
  return false;
}

function parseRaw(raw: string): RawResponse {
  const headEnd = raw.indexOf("\r\n\r\n");
  const head = headEnd === -1 ? raw : raw.slice(0, headEnd);
  const lines = head.split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "")?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, body: headEnd === -1 ? "" : raw.slice(headEnd + 4), raw };
}
