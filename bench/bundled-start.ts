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
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

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

function cpuMs(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`))
    total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
  return total / 1e6;
}

async function once({ file, env }: Variant): Promise<{ ms: number; cpu: number; rssMb: number }> {
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, file], {
    env: { ...process.env, ...env, BENCH_SCENARIO: "startup", BENCH_PORT: "0" },
    stdout: "pipe",
    stderr: "ignore",
  });
  try {
    const reader = proc.stdout.getReader();
    let text = "";
    let port = 0;
    while (port === 0) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`${file}: exited before it was ready`);
      text += new TextDecoder().decode(value);
      const line = text.split("\n").find((l) => l.includes('"ready"'));
      if (line) port = (JSON.parse(line) as { port: number }).port;
    }
    const response = await fetch(`http://127.0.0.1:${port}/`);
    await response.text();
    if (response.status !== 200) throw new Error(`${file}: GET / answered ${response.status}`);
    const ms = performance.now() - started;
    const cpu = cpuMs(proc.pid);
    await Bun.sleep(300);
    const rss = /^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"));
    return { ms, cpu, rssMb: Number(rss?.[1]) / 1024 };
  } finally {
    proc.kill();
    await proc.exited;
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

const samples = new Map(
  Object.keys(variants).map((name) => [name, [] as { ms: number; cpu: number; rssMb: number }[]]),
);
const names = Object.keys(variants);
for (let round = 0; round < Number(values.rounds); round++) {
  for (const name of round % 2 ? [...names].reverse() : names)
    samples.get(name)?.push(await once(variants[name] as Variant));
}
for (const outdir of builds) rmSync(outdir, { recursive: true, force: true });
const raw = samples.get("raw") ?? [];
const base = {
  ms: median(raw.map((s) => s.ms)),
  cpu: median(raw.map((s) => s.cpu)),
  rss: median(raw.map((s) => s.rssMb)),
};
console.log(`${"variant".padEnd(24)} first answer ms (× raw)   server CPU ms (× raw)   idle RSS MB (× raw)`);
for (const [name, runs] of samples) {
  const ms = median(runs.map((s) => s.ms));
  const cpu = median(runs.map((s) => s.cpu));
  const rss = median(runs.map((s) => s.rssMb));
  console.log(
    `${name.padEnd(24)} ${ms.toFixed(1).padStart(8)} (${(ms / base.ms).toFixed(2)})        ${cpu.toFixed(1).padStart(8)} (${(cpu / base.cpu).toFixed(2)})      ${rss.toFixed(1).padStart(6)} (${(rss / base.rss).toFixed(2)})`,
  );
}
