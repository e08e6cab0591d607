/**
 * Off costs nothing (docs/jobs.md): an app that registers no cron schedule and no job loads
 * neither croner, BullMQ nor ioredis, nor the job system; only the mount's stub and the lookup
 * table (a few lines) are loaded with the app. With a job, the system loads (BullMQ only with Redis).
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

const FIXTURE = join(import.meta.dir, "fixtures/loaded-modules.ts");

async function loaded(withJobs: boolean): Promise<{ status: number; loaded: string[] }> {
  const proc = Bun.spawn([process.execPath, FIXTURE], {
    env: { ...process.env, WITH_JOBS: withJobs ? "1" : "0" },
    stdout: "pipe",
    stderr: "ignore",
  });
  const out = await new Response(proc.stdout).text();
  expect(await proc.exited).toBe(0);
  return JSON.parse(out.trim().split("\n").at(-1) ?? "{}");
}

test("an app without cron or jobs loads none of their modules", async () => {
  const { status, loaded: modules } = await loaded(false);
  expect(status).toBe(200);
  const names = modules.map((path) => path.slice(path.lastIndexOf("/") + 1)).sort();
  // JobTimeoutError (jobs/errors.ts) is in webfw/jobs, not the root: an app without jobs does not load it.
  expect(names).toEqual(["lookup.ts", "mount.ts"]);
});

test("an app with a job and no Redis loads the job system and croner, not BullMQ", async () => {
  const { loaded: modules } = await loaded(true);
  expect(modules.some((path) => path.endsWith("src/jobs/system.ts"))).toBe(true);
  expect(modules.some((path) => path.includes("croner"))).toBe(true);
  expect(modules.some((path) => /bullmq|ioredis/.test(path))).toBe(false);
});
