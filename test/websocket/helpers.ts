import net from "node:net";
import type { ServerHandle, Webfw } from "../../src/index.ts";

/** A real WebSocket client (Bun's global `WebSocket`) with a pull API for tests. */
export interface TestClient {
  readonly raw: WebSocket;
  /** The next message (text as string, binary as Uint8Array); rejects after `ms`. */
  next(ms?: number): Promise<string | Uint8Array>;
  /** The next message parsed as JSON. */
  nextJson<T = unknown>(ms?: number): Promise<T>;
  /** Resolves with the close event (code, reason). */
  readonly closed: Promise<CloseEvent>;
  send(data: string | Uint8Array): void;
  close(code?: number, reason?: string): void;
  /** Messages received and not yet read with `next`. */
  pending(): number;
}

export function wsUrl(server: ServerHandle, path: string): string {
  return `${server.url.replace(/^http/, "ws")}${path}`;
}

/** Opens a connection; resolves once open, rejects when the handshake fails. */
export async function connect(url: string, headers?: Record<string, string>): Promise<TestClient> {
  const raw = headers ? new WebSocket(url, { headers } as unknown as string[]) : new WebSocket(url);
  raw.binaryType = "arraybuffer";
  const queue: (string | Uint8Array)[] = [];
  const waiters: ((message: string | Uint8Array) => void)[] = [];
  raw.addEventListener("message", (event) => {
    const data = typeof event.data === "string" ? event.data : new Uint8Array(event.data as ArrayBuffer);
    const waiter = waiters.shift();
    if (waiter) waiter(data);
    else queue.push(data);
  });
  const closed = new Promise<CloseEvent>((resolve) => raw.addEventListener("close", resolve));
  await new Promise<void>((resolve, reject) => {
    raw.addEventListener("open", () => resolve());
    raw.addEventListener("error", () => reject(new Error(`WebSocket handshake to ${url} failed`)));
  });
  const next = (ms = 5000) => {
    const queued = queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise<string | Uint8Array>((resolve, reject) => {
      const waiter = (message: string | Uint8Array) => {
        clearTimeout(timer);
        resolve(message);
      };
      const timer = setTimeout(() => {
        // A timed-out waiter must not swallow the next message.
        waiters.splice(waiters.indexOf(waiter), 1);
        reject(new Error(`no message within ${ms} ms`));
      }, ms);
      waiters.push(waiter);
    });
  };
  return {
    raw,
    next,
    nextJson: async <T>(ms?: number) => JSON.parse(String(await next(ms))) as T,
    closed,
    send: (data) => raw.send(data),
    close: (code, reason) => raw.close(code, reason),
    pending: () => queue.length,
  };
}

/** Waits for a promise, failing the test after `ms` instead of hanging. */
export function within<T>(promise: Promise<T>, ms = 5000, what = "operation"): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms),
    ),
  ]);
}

export interface RawHandshake {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends a WebSocket upgrade request over a plain TCP socket and returns the
 * HTTP answer (Bun's WebSocket client hides the status of a refused upgrade).
 */
export function rawHandshake(
  server: ServerHandle,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawHandshake> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, "127.0.0.1");
    let text = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("no handshake answer"));
    }, 5000);
    socket.on("error", reject);
    socket.on("connect", () => {
      const lines = [
        `GET ${path} HTTP/1.1`,
        `Host: 127.0.0.1:${server.port}`,
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 13",
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ];
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    });
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end === -1) return;
      const [statusLine = "", ...headerLines] = text.slice(0, end).split("\r\n");
      const parsed: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(":");
        parsed[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const status = Number(statusLine.split(" ")[1]);
      const length = Number(parsed["content-length"] ?? 0);
      if (status !== 101 && text.length - end - 4 < length) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status, headers: parsed, body: text.slice(end + 4, end + 4 + length) });
    });
  });
}

/** Starts the app on 127.0.0.1, port 0. */
export function start(app: Webfw): Promise<ServerHandle> {
  return app.start({ port: 0, host: "127.0.0.1", handleSignals: false, argv: [], accessLog: false });
}
