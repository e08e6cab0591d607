/**
 * Counters in Redis through Bun's built-in client, so that one limit holds
 * across `--processes` and machines. Each request is one atomic round trip:
 * a Lua script increments the key, starts its window on the first hit and
 * returns the count with the time left (EVALSHA; EVAL once when Redis does not
 * know the script yet, e.g. after a restart). Sliding windows have their own
 * script (below), on keys of their own.
 */
import { RedisClient } from "bun";
import { redactUrl } from "../topics/redis-connection.ts";
import { slidingHit } from "./sliding.ts";
import type { Hit, RateLimitStore } from "./store.ts";

interface Script {
  source: string;
  sha: string;
}

function script(source: string): Script {
  return { source, sha: new Bun.CryptoHasher("sha1").update(source).digest("hex") };
}

const FIXED = script(`
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }
`);

/**
 * The sliding window counter of src/rate-limit/sliding.ts in one script, on a hash (s: window
 * start, p: previous count, c: current count) that expires two windows after its window started.
 * The clock is Redis's (TIME), so that every machine sharing the limit agrees on the windows. The
 * comparison is slidingAllows's, in integers. Returns allowed (0/1), previous, current, elapsed ms.
 */
const SLIDING = script(`
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local w = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 's', 'p', 'c')
local start = tonumber(state[1])
local previous = tonumber(state[2]) or 0
local current = tonumber(state[3]) or 0
if start == nil or now - start >= 2 * w or now < start then
  start = now
  previous = 0
  current = 0
elseif now - start >= w then
  start = start + w
  previous = current
  current = 0
end
local elapsed = now - start
local allowed = 0
if previous * (w - elapsed) + (current + 1) * w <= limit * w then
  allowed = 1
  current = current + 1
end
redis.call('HSET', KEYS[1], 's', string.format('%d', start), 'p', previous, 'c', current)
redis.call('PEXPIRE', KEYS[1], start + 2 * w - now)
return { allowed, previous, current, elapsed }
`);
/** Where sliding counters live under the store's prefix: apart from fixed ones of the same policy name. */
const SLIDING_KEYS = "sliding:";
/** How long a failed connection attempt is not repeated. */
const RETRY_MS = 1_000;

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
    const [count, ttl] = (await this.call(FIXED, [this.prefix + key, String(windowMs)])) as [number, number];
    return { count: Number(count), resetMs: Math.max(0, Number(ttl)) };
  }

  async hitSliding(key: string, windowMs: number, limit: number): Promise<Hit> {
    const reply = await this.call(SLIDING, [
      this.prefix + SLIDING_KEYS + key,
      String(windowMs),
      String(limit),
    ]);
    const [allowed, previous, current, elapsed] = (reply as number[]).map(Number) as [
      number,
      number,
      number,
      number,
    ];
    return slidingHit(allowed === 1, previous, current, elapsed, windowMs, limit);
  }

  /** One script on one key, within `timeoutMs`. */
  private async call(script: Script, args: string[]): Promise<unknown> {
    if (this.closed) throw new RedisStoreError("the rate-limit store is closed");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new RedisStoreError(`Redis did not answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      return await Promise.race([this.run(script, ["1", ...args]), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.closed = true;
    this.client?.close();
    this.client = null;
  }

  private async run(script: Script, args: string[]): Promise<unknown> {
    const client = this.client?.connected ? this.client : await this.connect();
    try {
      return await client.send("EVALSHA", [script.sha, ...args]);
    } catch (error) {
      if (!String((error as Error)?.message ?? error).includes("NOSCRIPT")) throw error;
      return client.send("EVAL", [script.source, ...args]);
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
