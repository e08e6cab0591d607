/**
 * One start of a server, measured (bench/bundled-start.ts, bench/compiled-start.ts): the wall-clock
 * ms from the spawn to the first 200 of `GET /`, the CPU ms the process's threads had used by then
 * (/proc/PID/task/TID/schedstat: steadier than the clock on a shared machine) and its RSS 300 ms
 * later. The server prints `{"ready":true,"port":N}` on stdout once it listens (bench/lib/ready.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { readyPort } from "./proc.ts";
import { median } from "./report.ts";

export interface StartSample {
  ms: number;
  cpu: number;
  rssMb: number;
}

/** CPU ms used so far by every thread of `pid`. */
export function cpuMs(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return total / 1e6;
}

export async function startSample(
  command: string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<StartSample> {
  const started = performance.now();
  // `process.env` by hand: without `env`, Bun 1.4.5 passes the environment this process started with
  // (docs/performance.md, "The start-up row measured the sources").
  const env = options.env ?? { ...process.env };
  const proc = Bun.spawn(command, { cwd: options.cwd, env, stdout: "pipe", stderr: "ignore" });
  const name = command.join(" ");
  try {
    const port = await readyPort(proc);
    const response = await fetch(`http://127.0.0.1:${port}/`);
    await response.text();
    if (response.status !== 200) throw new Error(`${name}: GET / answered ${response.status}`);
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

/** The median of the samples (bench/lib/report.ts's), NaN for none. */
export function medianOf(xs: readonly number[]): number {
  return median([...xs]) ?? Number.NaN;
}
