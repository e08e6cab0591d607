/**
 * A real redis-server for tests: loopback only, no persistence (nothing written to disk), and
 * ready only once it answers PING (an app's start() fails on a Redis that is not there yet).
 */
import { RedisClient, type Subprocess } from "bun";
import { freePort } from "../cli/helpers.ts";

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
