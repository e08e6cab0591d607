/**
 * Prototype: webfw shipped as a prebuilt bundle (`bun build --splitting`, dynamic imports kept as
 * chunks) against the TypeScript sources Bun transpiles at every start, and raw `Bun.serve`
 * (docs/performance.md, "Start-up and idle memory"). Each round starts each variant's one-route
 * server (bench/servers/*.ts, scenario `startup`), in alternating order, and records:
 *
 * - start to first answer: wall-clock ms from the spawn to the first 200 of `GET /`, and the CPU ms
 *   the server's threads had used by then (/proc/PID/task/TID/schedstat: steadier on a shared machine);
 * - idle RSS 300 ms after that answer (/proc/PID/status).
 *
 *   bun bench/bundled-start.ts              # 7 rounds
 *   bun bench/bundled-start.ts --rounds 11
 *   bun bench/bundled-start.ts --tree /work/main   # another checkout's servers (an A/B in the same minutes)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { rounds: { type: "string", default: "7" }, tree: { type: "string" } },
});
const root = values.tree ?? new URL("..", import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), "webfw-bundle-"));

const built = await Bun.build({
  entrypoints: [join(root, "bench/servers/webfw.ts")],
  outdir: out,
  target: "bun",
  splitting: true,
});
if (!built.success) throw new AggregateError(built.logs, "bun build failed");
const entry = built.outputs.find((output) => output.kind === "entry-point")?.path as string;

const variants: Record<string, string> = {
  raw: join(root, "bench/servers/raw.ts"),
  "webfw (src)": join(root, "bench/servers/webfw.ts"),
  "webfw (bundle)": entry,
};

function cpuMs(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`))
    total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
  return total / 1e6;
}

async function once(file: string): Promise<{ ms: number; cpu: number; rssMb: number }> {
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, file], {
    env: { ...process.env, BENCH_SCENARIO: "startup", BENCH_PORT: "0" },
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
    samples.get(name)?.push(await once(variants[name] as string));
}
rmSync(out, { recursive: true, force: true });
const raw = samples.get("raw") ?? [];
const base = {
  ms: median(raw.map((s) => s.ms)),
  cpu: median(raw.map((s) => s.cpu)),
  rss: median(raw.map((s) => s.rssMb)),
};
console.log(`${"variant".padEnd(16)} first answer ms (× raw)   server CPU ms (× raw)   idle RSS MB (× raw)`);
for (const [name, runs] of samples) {
  const ms = median(runs.map((s) => s.ms));
  const cpu = median(runs.map((s) => s.cpu));
  const rss = median(runs.map((s) => s.rssMb));
  console.log(
    `${name.padEnd(16)} ${ms.toFixed(1).padStart(8)} (${(ms / base.ms).toFixed(2)})        ${cpu.toFixed(1).padStart(8)} (${(cpu / base.cpu).toFixed(2)})      ${rss.toFixed(1).padStart(6)} (${(rss / base.rss).toFixed(2)})`,
  );
}
