/**
 * Redis connections that last as long as the server: what the broadcast relay
 * (src/websocket/redis-relay.ts) and the MCP session relay
 * (src/mcp/redis-sessions.ts) both need from Bun's built-in client.
 */
import { RedisClient } from "bun";

/** How long the first connection may take before `start()` fails. */
export const CONNECT_TIMEOUT_MS = 5000;
/** Pause before connecting again once Bun's own reconnection gave up. */
const RETRY_MS = 2000;

/** The URL without its password, for error messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}

/** One connection without retries: fails fast and clearly on a wrong URL, port or password. */
export async function probeRedis(url: string): Promise<void> {
  const probe = new RedisClient(url, { autoReconnect: false, connectionTimeout: CONNECT_TIMEOUT_MS });
  try {
    await probe.connect();
  } finally {
    probe.close();
  }
}

/**
 * A client that reconnects on its own, and again after Bun gives up, until `stopped()` is true;
 * `onDrop` hears of every lost connection (what was in flight on it is gone).
 * No offline queue: during an outage a command fails at once instead of buffering without bound.
 */
export function lastingClient(url: string, stopped: () => boolean, onDrop?: () => void): RedisClient {
  const client = new RedisClient(url, {
    enableOfflineQueue: false,
    connectionTimeout: CONNECT_TIMEOUT_MS,
  });
  const reconnect = (): void => {
    if (stopped() || client.connected) return;
    client.connect().catch(() => {
      if (!stopped()) setTimeout(reconnect, RETRY_MS).unref();
    });
  };
  client.onclose = () => {
    if (stopped()) return;
    onDrop?.();
    setTimeout(reconnect, RETRY_MS).unref();
  };
  return client;
}

/**
 * Subscribes `client` to `channel`, first dropping a subscription it may still have (after a
 * reconnection the server forgot it, the client may not have): one listener, never two.
 */
export async function subscribeAfresh(
  client: RedisClient,
  channel: string,
  listener: (message: string) => void,
): Promise<void> {
  try {
    // Throws at once when the connection is not (or no longer) in subscriber mode.
    await client.unsubscribe(channel);
  } catch {}
  await client.subscribe(channel, listener);
}

/** Closes clients for good (their `onclose` must not reconnect them). */
export function closeClients(...clients: (RedisClient | null)[]): void {
  for (const client of clients) {
    if (client) client.onclose = null;
    client?.close();
  }
}
