/**
 * Cron and jobs across machines: two servers with `--processes 2` each (two "machines" of two
 * processes) share one real redis-server. Each cron tick runs exactly once, a run never overlaps
 * the previous one, and a process SIGKILLed mid-run leaves the next tick to another process; every
 * enqueued job finishes exactly once although a process running one is SIGKILLed.
 * The app (fixtures/cluster-app.ts) writes what ran where into Redis under `t:`.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { RedisClient, type Subprocess } from "bun";
import { launchProgram, type Program } from "../faults/spawn.ts";
import { startRedis } from "../helpers/redis.ts";
import { describeWithProgram } from "../helpers/system-program.ts";

const APP = join(import.meta.dir, "fixtures/cluster-app.ts");

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

describeWithProgram(
  "redis-server",
  "apt-get install -y redis-server",
  "cron and jobs across machines",
  () => {
    let redis: Subprocess;
    let client: RedisClient;
    const machines: Program[] = [];

    const list = async (key: string) => ((await client.send("LRANGE", [key, "0", "-1"])) as string[]) ?? [];

    beforeAll(async () => {
      const started = await startRedis();
      redis = started.process;
      client = new RedisClient(started.url);
      const env = { REDIS_URL: started.url };
      machines.push(
        await launchProgram(APP, ["--processes", "2"], { env, listening: 2 }),
        await launchProgram(APP, ["--processes", "2"], { env, listening: 2 }),
      );
    }, 60_000);

    afterAll(async () => {
      for (const machine of machines) await machine.stop().catch(() => undefined);
      client?.close();
      redis?.kill();
    });

    test("each tick runs exactly once across 2 machines × 2 processes, none lost", async () => {
      await client.send("DEL", ["t:cron-runs"]);
      await Bun.sleep(4_500);
      const runs = (await list("t:cron-runs")).map((line) => line.split("|"));
      const ticks = runs.map(([tick]) => Number(tick));
      expect(ticks.length).toBeGreaterThanOrEqual(3);
      // Exactly once: no tick twice.
      expect(new Set(ticks).size).toBe(ticks.length);
      // Ticks are whole seconds, one a second: none was lost while every process was up.
      const sorted = [...ticks].sort((a, b) => a - b);
      for (let i = 1; i < sorted.length; i++)
        expect((sorted[i] as number) - (sorted[i - 1] as number)).toBe(1000);
    }, 20_000);

    test("a process killed mid-run: ticks are skipped while its claim lasts, then run elsewhere", async () => {
      await client.send("DEL", ["t:cron-runs"]);
      await client.set("t:cron-hang", "1");
      const [hangTick, hangPid] = await until("a hanging cron run", 5_000, async () => {
        const hang = (await list("t:cron-runs")).find((line) => line.endsWith("|hang"));
        return hang?.split("|");
      });
      process.kill(Number(hangPid), "SIGKILL");
      const next = await until("a tick after the killed run", 10_000, async () =>
        (await list("t:cron-runs"))
          .map((line) => line.split("|"))
          .find(([tick]) => Number(tick) > Number(hangTick)),
      );
      expect(next[1]).not.toBe(hangPid);
      expect(next[2]).toBe("ok");
      // Never overlapping: while the killed run held its claim (RUN_LOCK_MS, 5 s), no tick ran.
      expect(Number(next[0]) - Number(hangTick)).toBeGreaterThanOrEqual(2000);
      // The supervisor respawned the killed process: both machines still answer.
      for (const machine of machines) expect((await fetch(`${machine.url}/health`)).status).toBe(200);
    }, 30_000);

    test("every enqueued job finishes exactly once despite a SIGKILLed process", async () => {
      await client.send("DEL", ["t:started", "t:done"]);
      const count = 12;
      for (let n = 0; n < count; n++) {
        const machine = machines[n % 2] as Program;
        const answer = await fetch(`${machine.url}/enqueue`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ n, ms: n === 0 ? 3000 : 300 }),
        });
        expect(answer.status).toBe(200);
        expect(await answer.json()).toEqual({ id: `work-${n}` });
      }
      // Enqueuing the same id again is a no-op (exactly-once enqueue).
      const again = await fetch(`${(machines[0] as Program).url}/enqueue`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ n: 1, ms: 300 }),
      });
      expect(again.status).toBe(200);
      // Job 0 runs 3 s: kill the process running it.
      const [, pid] = await until("job 0 to start", 5_000, async () =>
        (await list("t:started")).find((line) => line.startsWith("0|"))?.split("|"),
      );
      process.kill(Number(pid), "SIGKILL");
      const done = await until("every job to finish", 25_000, async () => {
        const lines = await list("t:done");
        return new Set(lines.map((line) => line.split("|")[0])).size >= count ? lines : undefined;
      });
      // Exactly once: each job finished one time, with its own id.
      expect(done.length).toBe(count);
      expect(new Set(done).size).toBe(count);
      for (let n = 0; n < count; n++) expect(done).toContain(`${n}|work-${n}`);
      // Job 0 started twice: in the killed process, then elsewhere.
      const starts = (await list("t:started"))
        .filter((line) => line.startsWith("0|"))
        .map((line) => line.split("|")[1]);
      expect(starts.length).toBe(2);
      expect(starts[1]).not.toBe(pid);
      // Nothing failed; BullMQ holds no failed job.
      expect(await client.send("ZCARD", ["webfw:work:failed"])).toBe(0);
    }, 45_000);
  },
);
