/**
 * Profiles one benchmark server under load: `bun bench/profile.ts hello webfw-bun [seconds]`.
 * Runs the server with `bun --cpu-prof-md` pinned to core 0, loads it with wrk on
 * core 1, stops it with SIGTERM and prints where the profile was written.
 */
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { SCENARIOS } from "./lib/scenarios.ts";
import { runWrk } from "./lib/wrk.ts";

const [scenarioName = "hello", variantId = "webfw-bun", secondsText = "5"] = process.argv.slice(2);
const scenario = SCENARIOS.find((s) => s.name === scenarioName);
const variant = scenario?.variants.find((v) => v.id === variantId);
if (!scenario || !variant) {
  console.error("usage: bun bench/profile.ts SCENARIO VARIANT [SECONDS]");
  process.exit(2);
}
const dir = join(import.meta.dir, "results", "profiles");
mkdirSync(dir, { recursive: true });
const name = `${scenario.name}-${variant.id}-${Date.now()}.md`;
const proc = Bun.spawn(
  [
    "taskset",
    "-c",
    "0",
    process.execPath,
    "--cpu-prof-md",
    `--cpu-prof-dir=${dir}`,
    `--cpu-prof-name=${name}`,
    "--cpu-prof-interval=100",
    join(import.meta.dir, "servers", `${variant.server}.ts`),
  ],
  {
    env: { ...process.env, ...variant.env, BENCH_SCENARIO: scenario.name },
    stdout: "pipe",
    stderr: "inherit",
  },
);
try {
  const reader = proc.stdout.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  const port = (JSON.parse(first.split("\n")[0] as string) as { port: number }).port;
  const result = await runWrk({
    url: `http://127.0.0.1:${port}${scenario.path}`,
    cpus: "1",
    connections: 64,
    duration: Number(secondsText),
    script: scenario.script ? join(import.meta.dir, "lua", scenario.script) : undefined,
  });
  console.log(`${Math.round(result.rps)} req/s while profiling`);
} finally {
  proc.kill("SIGTERM");
  await Promise.race([proc.exited, Bun.sleep(5000)]);
  proc.kill("SIGKILL");
}
console.log(`profile: ${join(dir, readdirSync(dir).find((f) => f === name) ?? "(not written)")}`);
