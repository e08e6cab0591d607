/**
 * The response cache store in Redis (docs/caching.md#stores), shared by every process and machine
 * that points at the same server: entries, tag sets, and one computation lock per key (SET NX PX
 * with a random token, released by a compare-and-delete script, so that a lock that expired and was
 * taken by someone else is never released by its first owner). Bun's built-in client.
 */
import type { RedisClient } from "bun";
import { lastingClient, redactUrl } from "../topics/redis-connection.ts";
import type { CacheEntry, CacheStore } from "./store.ts";

interface Script {
  source: string;
  sha: string;
}

function script(source: string): Script {
  return { source, sha: new Bun.CryptoHasher("sha1").update(source).digest("hex") };
}

/** KEYS: tag sets; ARGV: the entry's key, its lifetime in ms. A tag set lives as long as its longest entry. */
const INDEX = script(`
for _, tag in ipairs(KEYS) do
  redis.call('SADD', tag, ARGV[1])
  if redis.call('PTTL', tag) < tonumber(ARGV[2]) then redis.call('PEXPIRE', tag, ARGV[2]) end
end
return 1
`);

/** KEYS: tag sets. Drops their entries and the sets; returns how many entries were there. */
const INVALIDATE = script(`
local dropped = 0
for _, tag in ipairs(KEYS) do
  for _, key in ipairs(redis.call('SMEMBERS', tag)) do dropped = dropped + redis.call('DEL', key) end
  redis.call('DEL', tag)
end
return dropped
`);

/** Compare-and-delete: only the lock's owner (its token) releases it. */
const UNLOCK = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

export interface RedisCacheStoreOptions {
  /** `redis://host:port`, …; default `REDIS_URL`, else `redis://127.0.0.1:6379`. */
  url?: string;
  /** Prefix of every key (default `webfw:cache:`). */
  prefix?: string;
  /** Milliseconds a cache read or write waits for Redis before the request goes on without the cache (default 1000). */
  timeoutMs?: number;
}

export class RedisCacheStoreError extends Error {
  override name = "RedisCacheStoreError";
}

export class RedisCacheStore implements CacheStore {
  readonly shared = true;
  readonly url: string;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private client: RedisClient | null = null;
  private connecting: Promise<void> | null = null;
  /** Stops the current client's reconnection loop (src/topics/redis-connection.ts). */
  private release: (() => void) | null = null;

  constructor(options: RedisCacheStoreOptions = {}) {
    this.url = options.url ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
    this.prefix = options.prefix ?? "webfw:cache:";
    this.timeoutMs = options.timeoutMs ?? 1000;
    if (!(this.timeoutMs > 0)) throw new RangeError("timeoutMs must be a positive number of milliseconds");
  }

  async get(key: string): Promise<CacheEntry | null> {
    const bytes = await this.call((client) => client.getBuffer(`${this.prefix}e:${key}`));
    return bytes === null ? null : decodeEntry(bytes);
  }

  async set(key: string, entry: CacheEntry): Promise<void> {
    const life = entry.ttl + entry.staleWhileRevalidate;
    const stored = `${this.prefix}e:${key}`;
    await this.call(async (client) => {
      await client.set(stored, encodeEntry(entry), "PX", life);
      if (entry.tags.length > 0)
        await this.script(
          client,
          INDEX,
          entry.tags.map((tag) => `${this.prefix}t:${tag}`),
          [stored, String(life)],
        );
    });
  }

  async invalidate(tags: string[]): Promise<number> {
    if (tags.length === 0) return 0;
    const keys = tags.map((tag) => `${this.prefix}t:${tag}`);
    return Number(await this.call((client) => this.script(client, INVALIDATE, keys, [])));
  }

  async lock(key: string, ms: number): Promise<string | null> {
    const token = crypto.randomUUID();
    const taken = await this.call((client) =>
      client.send("SET", [`${this.prefix}l:${key}`, token, "NX", "PX", String(ms)]),
    );
    return taken === "OK" ? token : null;
  }

  async unlock(key: string, token: string): Promise<void> {
    await this.call((client) => this.script(client, UNLOCK, [`${this.prefix}l:${key}`], [token]));
  }

  async locked(key: string): Promise<boolean> {
    return Number(await this.call((client) => client.send("EXISTS", [`${this.prefix}l:${key}`]))) === 1;
  }

  /**
   * Closes the connection (the server stops). Not for good: the next use connects again, so the
   * same store serves an app started again.
   */
  close(): void {
    this.release?.();
    this.release = null;
    if (this.client) this.client.onclose = null;
    this.client?.close();
    this.client = null;
  }

  /** One command (or a few) within `timeoutMs`, on the store's one connection. */
  private async call<T>(run: (client: RedisClient) => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new RedisCacheStoreError(`Redis did not answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      return await Promise.race([this.connected().then(run), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async connected(): Promise<RedisClient> {
    // It reconnects by itself after a drop (src/topics/redis-connection.ts); no offline queue.
    if (this.client === null) {
      let released = false;
      this.client = lastingClient(this.url, () => released);
      this.release = () => {
        released = true;
      };
    }
    const client = this.client;
    if (client.connected) return client;
    this.connecting ??= client
      .connect()
      .catch((error: unknown) => {
        throw new RedisCacheStoreError(
          `Redis at ${redactUrl(this.url)} is unreachable: ${(error as Error)?.message ?? error}`,
        );
      })
      .finally(() => {
        this.connecting = null;
      });
    await this.connecting;
    return client;
  }

  private async script(
    client: RedisClient,
    script: Script,
    keys: string[],
    args: string[],
  ): Promise<unknown> {
    const argv = [String(keys.length), ...keys, ...args];
    try {
      return await client.send("EVALSHA", [script.sha, ...argv]);
    } catch (error) {
      if (!String((error as Error)?.message ?? error).includes("NOSCRIPT")) throw error;
      return client.send("EVAL", [script.source, ...argv]);
    }
  }
}

/** Four bytes of header length, the JSON of everything but the body, then the body's bytes. */
function encodeEntry(entry: CacheEntry): Uint8Array {
  const meta = new TextEncoder().encode(
    JSON.stringify([
      entry.status,
      entry.headers,
      entry.storedAt,
      entry.ttl,
      entry.staleWhileRevalidate,
      entry.tags,
    ]),
  );
  const bytes = new Uint8Array(4 + meta.byteLength + entry.body.byteLength);
  new DataView(bytes.buffer).setUint32(0, meta.byteLength);
  bytes.set(meta, 4);
  bytes.set(entry.body, 4 + meta.byteLength);
  return bytes;
}

/** A value another program (or another version) wrote is a miss, not an error. */
function decodeEntry(bytes: Uint8Array): CacheEntry | null {
  try {
    const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
    const [status, headers, storedAt, ttl, staleWhileRevalidate, tags] = JSON.parse(
      new TextDecoder().decode(bytes.subarray(4, 4 + length)),
    ) as [number, [string, string][], number, number, number, string[]];
    if (typeof status !== "number" || !Array.isArray(headers)) return null;
    return { status, headers, body: bytes.subarray(4 + length), storedAt, ttl, staleWhileRevalidate, tags };
  } catch {
    return null;
  }
}
