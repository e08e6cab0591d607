/**
 * A WebSocket client made by hand on `Bun.connect`: a real upgrade, then
 * frames built byte by byte, so tests can send what no WebSocket library
 * would (unmasked frames, reserved opcodes, lying lengths, bad UTF-8).
 */

export interface Frame {
  fin: boolean;
  opcode: number;
  payload: Uint8Array;
}

export interface FrameOptions {
  fin?: boolean;
  /** RSV1-3 bits (0-7). */
  rsv?: number;
  /** Mask the payload, as a client must. Default true. */
  mask?: boolean;
  /** Length written in the header instead of the payload's real length. */
  declaredLength?: number;
}

/** Encodes one frame (RFC 6455 §5.2). */
export function frame(
  opcode: number,
  payload: Uint8Array | string = new Uint8Array(0),
  options: FrameOptions = {},
): Uint8Array {
  const data = typeof payload === "string" ? new TextEncoder().encode(payload) : payload;
  const length = options.declaredLength ?? data.length;
  const masked = options.mask ?? true;
  const head: number[] = [((options.fin ?? true) ? 0x80 : 0) | ((options.rsv ?? 0) << 4) | (opcode & 0x0f)];
  const maskBit = masked ? 0x80 : 0;
  if (length < 126) head.push(maskBit | length);
  else if (length < 65536) head.push(maskBit | 126, length >> 8, length & 0xff);
  else {
    head.push(maskBit | 127);
    const big = BigInt(length);
    for (let shift = 56n; shift >= 0n; shift -= 8n) head.push(Number((big >> shift) & 0xffn));
  }
  const key = masked ? [0x12, 0x34, 0x56, 0x78] : [];
  const body = masked ? data.map((byte, i) => byte ^ (key[i % 4] as number)) : data;
  const out = new Uint8Array(head.length + key.length + body.length);
  out.set(head, 0);
  out.set(key, head.length);
  out.set(body, head.length + key.length);
  return out;
}

/** A close frame with a status code. */
export function closeFrame(code: number, reason = ""): Uint8Array {
  const reasonBytes = new TextEncoder().encode(reason);
  const payload = new Uint8Array(2 + reasonBytes.length);
  payload[0] = code >> 8;
  payload[1] = code & 0xff;
  payload.set(reasonBytes, 2);
  return frame(0x8, payload);
}

export interface RawWebSocket {
  /** Status line code of the handshake answer (101 when upgraded). */
  status: number;
  send(bytes: Uint8Array): void;
  /** The next complete frame from the server, or `null` if it closed (or `ms` passed) first. */
  nextFrame(ms?: number): Promise<Frame | null>;
  /** Resolves when the TCP connection is closed (by either side). */
  readonly closed: Promise<void>;
  isClosed(): boolean;
  end(): void;
}

/** Opens a TCP connection, sends the upgrade request, and waits for the handshake answer. */
export async function rawWebSocket(port: number, path: string, extraHeaders = ""): Promise<RawWebSocket> {
  let buffer = Buffer.alloc(0);
  let closed = false;
  let wake: () => void = () => {};
  let onClosed: () => void = () => {};
  const closedPromise = new Promise<void>((resolve) => {
    onClosed = resolve;
  });
  const markClosed = () => {
    closed = true;
    onClosed();
    wake();
  };
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_s, data) {
        buffer = Buffer.concat([buffer, Buffer.from(data)]);
        wake();
      },
      close: markClosed,
      end: markClosed,
      error: markClosed,
    },
  });
  const waitForData = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });

  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n${extraHeaders}\r\n`,
  );
  const deadline = Date.now() + 5000;
  while (buffer.indexOf("\r\n\r\n") === -1 && !closed && Date.now() < deadline) await waitForData(200);
  const headEnd = buffer.indexOf("\r\n\r\n");
  const head = headEnd === -1 ? buffer.toString("latin1") : buffer.subarray(0, headEnd).toString("latin1");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  if (headEnd !== -1) buffer = buffer.subarray(headEnd + 4);

  const parseFrame = (): Frame | null => {
    if (buffer.length < 2) return null;
    const b0 = buffer[0] as number;
    const b1 = buffer[1] as number;
    let length = b1 & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (buffer.length < 4) return null;
      length = buffer.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (buffer.length < 10) return null;
      length = Number(buffer.readBigUInt64BE(2));
      offset = 10;
    }
    if (b1 & 0x80) offset += 4; // servers never mask, but parse it anyway
    if (buffer.length < offset + length) return null;
    const payload = new Uint8Array(buffer.subarray(offset, offset + length));
    buffer = buffer.subarray(offset + length);
    return { fin: (b0 & 0x80) !== 0, opcode: b0 & 0x0f, payload };
  };

  return {
    status,
    send(bytes) {
      if (!closed) socket.write(bytes);
    },
    async nextFrame(ms = 3000) {
      const until = Date.now() + ms;
      for (;;) {
        const parsed = parseFrame();
        if (parsed) return parsed;
        if (closed || Date.now() >= until) return null;
        await waitForData(Math.max(1, until - Date.now()));
      }
    },
    closed: closedPromise,
    isClosed: () => closed,
    end: () => socket.end(),
  };
}

/** The status code of a close frame's payload (1005 when it has none). */
export function closeCode(f: Frame): number {
  return f.payload.length >= 2 ? ((f.payload[0] as number) << 8) | (f.payload[1] as number) : 1005;
}
