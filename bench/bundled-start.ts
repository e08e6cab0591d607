/**
 * webfw as the package ships it (dist/, built by scripts/build.ts: docs/packaging.md) against the
 * TypeScript sources Bun transpiles at every start, and raw `Bun.serve` (docs/performance.md,
 * "Issue 32, third pass: the shipped bundle"). Each round starts each variant's one-route server
 * (bench/servers/*.ts, scenario `startup`; webfw with `BENCH_WEBFW=src` or `=dist`), in
 * alternating order, and records:
 *
 * - start to first answer: wall-clock ms from the spawn to the first 200 of `GET /`, and the CPU ms
 *   the server's threads had used by then (/proc/PID/task/TID/schedstat: steadier on a shared machine);
 * - idle RSS 300 ms after that answer (/proc/PID/status).
 *
 *   bun bench/bundled-start.ts                          # 7 rounds: raw, src, dist (minify: syntax)
 *   bun bench/bundled-start.ts --rounds 11 --minify none,syntax,all   # one build per minify mode
 *   bun bench/bundled-start.ts --tree /work/main        # another checkout's servers (an A/B in the same minutes)
 *
 * The builds go to `<tree>/tmp/bundle-<mode>/` (inside the tree: the chunks import webfw's
 * dependencies from its node_modules) and are removed at the end.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { medianOf, type StartSample, startSample } from "./lib/start-sample.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    rounds: { type: "string", default: "7" },
    tree: { type: "string" },
    minify: { type: "string", default: "syntax" },
  },
});
const root = values.tree ?? new URL("..", import.meta.url).pathname;
const { buildBundle } = (await import(
  join(root, "scripts/build.ts")
)) as typeof import("../scripts/build.ts");

interface Variant {
  file: string;
  env: Record<string, string>;
}
const server = join(root, "bench/servers/webfw.ts");
const variants: Record<string, Variant> = {
  raw: { file: join(root, "bench/servers/raw.ts"), env: {} },
  "webfw (src)": { file: server, env: { BENCH_WEBFW: "src" } },
};
const builds: string[] = [];
for (const mode of values.minify.split(",")) {
  const outdir = join(root, "tmp", `bundle-${mode}`);
  await buildBundle(outdir, mode, root);
  builds.push(outdir);
  variants[`webfw (dist, ${mode})`] = {
    file: server,
    env: { BENCH_WEBFW: "dist", BENCH_WEBFW_DIST: outdir },
  };
}

function once({ file, env }: Variant): Promise<StartSample> {
  return startSample([process.execPath, file], {
    env: { ...process.env, ...env, BENCH_SCENARIO: "startup", BENCH_PORT: "0" },
  });
}

const samples = new Map(Object.keys(variants).map((name) => [name, [] as StartSample[]]));
const names = Object.keys(variants);
for (let round = 0; round < Number(values.rounds); round++) {
  for (const name of round % 2 ? [...names].reverse() : names)
    samples.get(name)?.push(await once(variants[name] as Variant));
}
for (const outdir of builds) rmSync(outdir, { recursive: true, force: true });
const raw = samples.get("raw") ?? [];
const base = {
  ms: medianOf(raw.map((s) => s.ms)),
  cpu: medianOf(raw.map((s) => s.cpu)),
  rss: medianOf(raw.map((s) => s.rssMb)),
};
console.log(`${"variant".padEnd(24)} first answer ms (× raw)   server CPU ms (× raw)   idle RSS MB (× raw)`);
for (const [name, runs] of samples) {
  const ms = medianOf(runs.map((s) => s.ms));
  const cpu = medianOf(runs.map((s) => s.cpu));
  const rss = medianOf(runs.map((s) => s.rssMb));
  console.log(
    `${name.padEnd(24)} ${ms.toFixed(1).padStart(8)} (${(ms / base.ms).toFixed(2)})        ${cpu.toFixed(1).padStart(8)} (${(cpu / base.cpu).toFixed(2)})      ${rss.toFixed(1).padStart(6)} (${(rss / base.rss).toFixed(2)})`,
  );
}
