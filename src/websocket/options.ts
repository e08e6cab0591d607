/** Server-wide WebSocket settings (`new Webfw(path, { websocket: { … } })`). */
export interface WebSocketOptions {
  /** Largest message a client may send, in bytes; a larger one closes the connection with 1009. Default 16 MiB. */
  maxPayloadLength?: number;
  /**
   * Bytes the server may buffer for one slow client before sends wait for it (`await ws.sendText()`
   * resolves once the data is handed to the socket). Default 1 MiB; `0` means no limit.
   */
  backpressureLimit?: number;
  /**
   * Drop the connection of a client whose buffer passes `backpressureLimit` through broadcasts it cannot
   * keep up with (Bun ends it without a close frame: the client sees 1006). When `false`, Bun drops the
   * broadcasts it cannot buffer instead and the client misses them. Default `true`.
   */
  closeOnBackpressureLimit?: boolean;
  /** Seconds without any frame before the connection is closed (Bun pings shortly before). Default 120; `0` disables it. */
  idleTimeout?: number;
  /** Ping idle clients before `idleTimeout` expires. Default `true`. */
  sendPings?: boolean;
  /** Negotiate permessage-deflate with clients that offer it. Default `false`. */
  perMessageDeflate?: boolean;
  /**
   * Received messages waiting for the handler to read them; at this count (or `maxQueuedBytes`) the server
   * stops reading from the socket until the handler catches up, so the client sees TCP backpressure. Default 256.
   */
  maxQueuedMessages?: number;
  /** The byte size of waiting messages at which reading pauses (see `maxQueuedMessages`). Default 1 MiB. */
  maxQueuedBytes?: number;
}

export type ResolvedWebSocketOptions = Required<WebSocketOptions>;

export const WEBSOCKET_DEFAULTS: ResolvedWebSocketOptions = {
  maxPayloadLength: 16 * 1024 * 1024,
  backpressureLimit: 1024 * 1024,
  closeOnBackpressureLimit: true,
  idleTimeout: 120,
  sendPings: true,
  perMessageDeflate: false,
  maxQueuedMessages: 256,
  maxQueuedBytes: 1024 * 1024,
};

const U32 = 2 ** 32 - 1;

/** Fills in defaults and refuses values Bun would clamp or misread, so a typo fails at construction. */
export function resolveWebSocketOptions(options: WebSocketOptions = {}): ResolvedWebSocketOptions {
  const out = { ...WEBSOCKET_DEFAULTS, ...stripUndefined(options) };
  integer(out.maxPayloadLength, "maxPayloadLength", 1, U32);
  integer(out.backpressureLimit, "backpressureLimit", 0, U32);
  integer(out.idleTimeout, "idleTimeout", 0, 960);
  integer(out.maxQueuedMessages, "maxQueuedMessages", 1, U32);
  integer(out.maxQueuedBytes, "maxQueuedBytes", 1, Number.MAX_SAFE_INTEGER);
  for (const name of ["closeOnBackpressureLimit", "sendPings", "perMessageDeflate"] as const) {
    if (typeof out[name] !== "boolean") throw new TypeError(`websocket.${name} must be a boolean`);
  }
  return out;
}

function integer(value: unknown, name: string, min: number, max: number): void {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`websocket.${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
}

function stripUndefined(options: WebSocketOptions): WebSocketOptions {
  if (typeof options !== "object" || options === null)
    throw new TypeError("the websocket option must be an object");
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

/** `app.configureBroadcast({ … })`: relays `broadcast` through Redis pub/sub to every process and machine. */
export interface BroadcastOptions {
  /** `redis://[user:password@]host:port[/db]`, `rediss://` for TLS (Bun's built-in Redis client). */
  redisUrl: string;
  /** The Redis channel the processes of one application share. Default `webfw:broadcast`. */
  channel?: string;
}

export function checkBroadcastOptions(options: BroadcastOptions): Required<BroadcastOptions> {
  if (typeof options !== "object" || options === null)
    throw new TypeError("configureBroadcast needs { redisUrl }");
  const { redisUrl, channel = "webfw:broadcast" } = options;
  if (
    typeof redisUrl !== "string" ||
    !/^(redis|rediss|valkey|valkeys|redis\+unix|redis\+tls):\/\//.test(redisUrl)
  ) {
    throw new TypeError(
      `configureBroadcast: redisUrl must be a redis:// URL, got ${JSON.stringify(redisUrl)}`,
    );
  }
  if (typeof channel !== "string" || channel === "")
    throw new TypeError("configureBroadcast: channel must be a non-empty string");
  return { redisUrl, channel };
}
