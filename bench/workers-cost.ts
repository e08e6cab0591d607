/**
 * CPU time per offloaded request, by thread (docs/performance.md, "Worker pool"): the bench
 * server of the `cpu` scenario with a tiny handler (so the pool's own cost is what is left),
 * loaded with h2load, each thread's run time read from /proc/PID/task/TID/schedstat
 * (nanoseconds) before and after. The main thread's figure is what limits `--workers N`: it
 * parses, dispatches, posts each call and answers each reply, while the Workers run handlers.
 * CPU time moves far less than wall-clock throughput on a shared machine.
 *
 *   bun bench/workers-cost.ts [--requests N] [--repeat N] [--iterations N] [--variants 1,2]
 *                             [--threads] [--tree OTHER_CHECKOUT]
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "20000" },
    repeat: { type: "string", default: "3" },
    iterations: { type: "string", default: "1000" },
    variants: { type: "string", default: "1,2" },
    connections: { type: "string", default: "8" },
    threads: { type: "boolean", default: false },
    /** Another checkout to measure (its bench/servers/webfw.ts and src/), for A/B in the same minutes. */
    tree: { type: "string" },
  },
});
const requests = Number(values.requests);
const repeat = Number(values.repeat);
const variants = (values.variants ?? "1,2").split(",").map(Number);
const root = values.tree ?? join(import.meta.dir, "..");

/** Run time of every thread of `pid`, in ns, by thread id (with its name). */
function threadTimes(pid: number): Map<number, { name: string; ns: number }> {
  const times = new Map<number, { name: string; ns: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      times.set(Number(tid), { name, ns });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return times;
}

async function load(port: number, n: number): Promise<void> {
  const run = Bun.spawn(
    [
      "h2load",
      "--h1",
      "-n",
      String(n),
      "-c",
      values.connections ?? "8",
      "-t",
      "1",
      `http://127.0.0.1:${port}/cpu`,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const out = await new Response(run.stdout).text();
  await run.exited;
  if (!out.includes(`${n} succeeded`)) throw new Error(`not every request succeeded:\n${out}`);
}

interface Sample {
  workers: number;
  mainNs: number;
  totalNs: number;
}

async function sample(workers: number): Promise<Sample> {
  const server = Bun.spawn(["bun", "bench/servers/webfw.ts"], {
    cwd: root,
    env: {
      ...process.env,
      PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH}`,
      BENCH_SCENARIO: "cpu",
      BENCH_WORKERS: String(workers),
      BENCH_CPU_ITERATIONS: values.iterations,
    },
    stdout: "pipe",
    stderr: "inherit",
  });
  try {
    const reader = server.stdout.getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("server exited before it was ready");
      text += new TextDecoder().decode(value);
    }
    const port = (JSON.parse(text.split("\n")[0] as string) as { port: number }).port;
    await load(port, Math.max(2000, requests / 2));
    const before = threadTimes(server.pid);
    await load(port, requests);
    const after = threadTimes(server.pid);
    let totalNs = 0;
    for (const [tid, { ns }] of after) totalNs += ns - (before.get(tid)?.ns ?? 0);
    const mainNs = (after.get(server.pid)?.ns ?? 0) - (before.get(server.pid)?.ns ?? 0);
    if (values.threads) {
      const byName = new Map<string, number>();
      for (const [tid, { name, ns }] of after) {
        const key = tid === server.pid ? "(main)" : name;
        byName.set(key, (byName.get(key) ?? 0) + (ns - (before.get(tid)?.ns ?? 0)) / requests / 1000);
      }
      console.error([...byName].map(([name, us]) => `${name} ${us.toFixed(1)}`).join(", "));
    }
    return { workers, mainNs: mainNs / requests, totalNs: totalNs / requests };
  } finally {
    server.kill("SIGTERM");
    await server.exited;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const results = new Map<number, Sample[]>();
for (let i = 0; i < repeat; i++) {
  for (const workers of variants) {
    const s = await sample(workers);
    results.set(workers, [...(results.get(workers) ?? []), s]);
    console.error(
      `workers ${workers}: main ${(s.mainNs / 1000).toFixed(1)} µs, all ${(s.totalNs / 1000).toFixed(1)} µs`,
    );
  }
}
console.log(
  `| workers | main thread µs/request (median, min–max) | all threads µs/request (median, min–max) |`,
);
console.log("|--:|--:|--:|");
for (const [workers, samples] of results) {
  const main = samples.map((s) => s.mainNs / 1000);
  const all = samples.map((s) => s.totalNs / 1000);
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
  console.log(
    `| ${workers} | ${median(main).toFixed(1)} (${range(main)}) | ${median(all).toFixed(1)} (${range(all)}) |`,
  );
}
