/**
 * A real redis-server for tests: loopback only, no persistence (nothing written to disk), and
 * ready only once it answers PING (an app's start() fails on a Redis that is not there yet).
 */
import { afterAll, beforeAll } from "bun:test";
import { RedisClient, type Subprocess } from "bun";
import type { ServerHandle, Webfw } from "../../src/index.ts";
import { freePort } from "../cli/helpers.ts";
import type { Program } from "../faults/spawn.ts";

export function spawnRedis(port: number): Subprocess {
  return Bun.spawn(
    ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdout: "ignore", stderr: "ignore" },
  );
}

export async function untilRedisAnswers(url: string): Promise<void> {
  for (let i = 0; ; i++) {
    const probe = new RedisClient(url, { autoReconnect: false, connectionTimeout: 500 });
    try {
      await probe.send("PING", []);
      return;
    } catch (error) {
      if (i > 100) throw error;
      await Bun.sleep(100);
    } finally {
      probe.close();
    }
  }
}

/**
 * A redis-server answering on `port` (default: a free one): its process (kill it in afterAll)
 * and its URL. Pass the port of one that was killed to bring "the same Redis" back.
 */
export async function startRedis(
  port = freePort(),
): Promise<{ process: Subprocess; port: number; url: string }> {
  const url = `redis://127.0.0.1:${port}`;
  const process = spawnRedis(port);
  await untilRedisAnswers(url);
  return { process, port, url };
}

/** A suite's Redis and what the suite started on it, all stopped after the suite. */
export interface RedisSuite {
  /** The Redis URL (once `beforeAll` has run). */
  readonly url: string;
  /** Starts `app` on a free loopback port, stopped after the suite. */
  serve(app: Webfw): Promise<ServerHandle>;
  /** A launched program, stopped after the suite. */
  keep(program: Program): Program;
  /** Redis going away: redis-server killed (SIGKILL). */
  kill(): Promise<void>;
  /** Redis back on the same port, answering. */
  restart(): Promise<void>;
}

/** Registers, in the calling `describe`, a Redis started before its tests and stopped after them. */
export function redisSuite(): RedisSuite {
  let redis: { process: Subprocess; port: number; url: string } | null = null;
  const servers: ServerHandle[] = [];
  const programs: Program[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  }, 30_000);
  afterAll(async () => {
    for (const server of servers) await server.stop(true);
    for (const program of programs) await program.stop();
    redis?.process.kill();
    await redis?.process.exited;
  });
  return {
    get url() {
      return redis?.url ?? "";
    },
    async serve(app) {
      const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
      servers.push(server);
      return server;
    },
    keep(program) {
      programs.push(program);
      return program;
    },
    async kill() {
      redis?.process.kill("SIGKILL");
      await redis?.process.exited;
    },
    async restart() {
      if (redis) redis = await startRedis(redis.port);
    },
  };
}
