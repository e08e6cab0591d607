/**
 * Who runs a cron tick (docs/jobs.md, "Once per tick"). With Redis, each tick is claimed once
 * across every process and machine (a key per schedule and tick, `SET NX`), and a schedule whose
 * previous run is still going is skipped (a `running` key, renewed while the run lasts, expiring
 * `RUN_LOCK_MS` after its process died). Without Redis, one process per machine runs the ticks.
 */
import type { RedisClient } from "bun";
import { closeClients, lastingClient } from "../topics/redis-connection.ts";

/** The claim of a run lapses this long after its process stopped renewing it (died). */
export const RUN_LOCK_MS = 5000;
/** A tick's key outlives the tick by this much: longer than any sane clock skew between machines. */
const TICK_KEY_MS = 10 * 60_000;

export type Claim = "run" | "taken" | "overlap";

export interface CronLock {
  /** Claims tick `tickMs` of `name` for this process. */
  claim(name: string, tickMs: number): Promise<Claim>;
  /** Keeps the run's claim alive while it lasts; returns the function that ends it. */
  hold(name: string): () => Promise<void>;
  close(): void;
}

// KEYS: the tick's key, the schedule's running key. ARGV: owner, tick ttl, run ttl.
const CLAIM = `if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3]) return 1 end
return -1`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

const runningKey = (name: string) => `webfw:cron:${name}:running`;

export class RedisCronLock implements CronLock {
  private readonly client: RedisClient;
  private stopped = false;
  /** This process, as the owner of the claims it takes. */
  private readonly owner = `${process.pid}:${crypto.randomUUID()}`;

  constructor(url: string) {
    this.client = lastingClient(url, () => this.stopped);
  }

  async connect(): Promise<void> {
    await this.client.connect();
  }

  async claim(name: string, tickMs: number): Promise<Claim> {
    const answer = await this.client.send("EVAL", [
      CLAIM,
      "2",
      `webfw:cron:${name}:tick:${tickMs}`,
      runningKey(name),
      this.owner,
      String(TICK_KEY_MS),
      String(RUN_LOCK_MS),
    ]);
    return answer === 1 ? "run" : answer === 0 ? "overlap" : "taken";
  }

  hold(name: string): () => Promise<void> {
    const key = runningKey(name);
    const renew = setInterval(() => {
      this.client.send("EVAL", [RENEW, "1", key, this.owner, String(RUN_LOCK_MS)]).catch(() => {});
    }, RUN_LOCK_MS / 3);
    renew.unref();
    return async () => {
      clearInterval(renew);
      await this.client.send("EVAL", [RELEASE, "1", key, this.owner]).catch(() => {});
    };
  }

  close(): void {
    this.stopped = true;
    closeClients(this.client);
  }
}

/** Without Redis: this process runs every tick, a run at a time per schedule. */
export class LocalCronLock implements CronLock {
  private readonly running = new Set<string>();

  async claim(name: string): Promise<Claim> {
    if (this.running.has(name)) return "overlap";
    this.running.add(name);
    return "run";
  }

  hold(name: string): () => Promise<void> {
    return async () => {
      this.running.delete(name);
    };
  }

  close(): void {}
}
