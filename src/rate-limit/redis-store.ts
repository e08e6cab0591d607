/**
 * Counters in Redis through Bun's built-in client, so that one limit holds
 * across `--processes` and machines. Each request is one atomic round trip:
 * a Lua script increments the key, starts its window on the first hit and
 * returns the count with the time left (EVALSHA; EVAL once when Redis does not
 * know the script yet, e.g. after a restart).
 */
import { RedisClient } from "bun";
import { redactUrl } from "../topics/redis-connection.ts";
import type { Hit, RateLimitStore } from "./store.ts";

const SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }
`;
/** How long a failed connection attempt is not repeated. */
const RETRY_MS = 1_000;
const SHA = new Bun.CryptoHasher("sha1").update(SCRIPT).digest("hex");

export interface RedisStoreOptions {
  /** `redis://host:port`, `redis+unix:///path/redis.sock`, …; default `REDIS_URL`, else `redis://127.0.0.1:6379`. */
  url?: string;
  /** Prefix of every key (default `webfw:rl:`), to share one Redis with other data. */
  prefix?: string;
  /** Milliseconds a request waits for Redis before the limit's `onStoreError` applies (default 500). */
  timeoutMs?: number;
}

export class RedisStoreError extends Error {
  override name = "RedisStoreError";
}

export class RedisStore implements RateLimitStore {
  readonly url: string;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private client: RedisClient | null = null;
  private connecting: Promise<RedisClient> | null = null;
  private retryAt = 0;
  private closed = false;

  constructor(options: RedisStoreOptions = {}) {
    this.url = options.url ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
    this.prefix = options.prefix ?? "webfw:rl:";
    this.timeoutMs = options.timeoutMs ?? 500;
    if (!(this.timeoutMs > 0)) throw new RangeError("timeoutMs must be a positive number of milliseconds");
  }

  async hit(key: string, windowMs: number): Promise<Hit> {
    if (this.closed) throw new RedisStoreError("the rate-limit store is closed");
    const args = ["1", this.prefix + key, String(windowMs)];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new RedisStoreError(`Redis did not answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      const reply = await Promise.race([this.run(args), timeout]);
      const [count, ttl] = reply as [number, number];
      return { count: Number(count), resetMs: Math.max(0, Number(ttl)) };
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.closed = true;
    this.client?.close();
    this.client = null;
  }

  private async run(args: string[]): Promise<unknown> {
    const client = this.client?.connected ? this.client : await this.connect();
    try {
      return await client.send("EVALSHA", [SHA, ...args]);
    } catch (error) {
      if (!String((error as Error)?.message ?? error).includes("NOSCRIPT")) throw error;
      return client.send("EVAL", [SCRIPT, ...args]);
    }
  }

  /**
   * One connection, made on first use and again after an outage. While Redis is
   * away, a failed attempt is not repeated for a second: requests meanwhile fail
   * at once (and get `onStoreError`) instead of each waiting for a connect.
   */
  private connect(): Promise<RedisClient> {
    if (this.connecting !== null) return this.connecting;
    if (performance.now() < this.retryAt) {
      return Promise.reject(new RedisStoreError(`Redis at ${redactUrl(this.url)} is unreachable`));
    }
    // No offline queue: a command on a lost connection fails at once instead of waiting in memory.
    const client = new RedisClient(this.url, {
      enableOfflineQueue: false,
      autoReconnect: false,
      connectionTimeout: this.timeoutMs,
    });
    this.connecting = client
      .connect()
      .then(() => {
        if (this.closed) {
          client.close();
          throw new RedisStoreError("the rate-limit store is closed");
        }
        this.client?.close();
        this.client = client;
        return client;
      })
      .catch((error: unknown) => {
        this.retryAt = performance.now() + RETRY_MS;
        client.close();
        throw new RedisStoreError(
          `Redis at ${redactUrl(this.url)} is unreachable: ${(error as Error)?.message ?? error}`,
        );
      })
      .finally(() => {
        this.connecting = null;
      });
    return this.connecting;
  }
}
