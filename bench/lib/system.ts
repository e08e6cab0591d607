/** The machine the numbers were measured on, and a check that it is quiet enough to measure. */
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism, loadavg, release } from "node:os";

export interface Machine {
  cpuModel: string;
  nproc: number;
  kernel: string;
  bun: string;
  wrk: string;
  memTotalMb: number;
}

export function describeMachine(): Machine {
  const cpuinfo = safeRead("/proc/cpuinfo");
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? "unknown";
  const memKb = Number(/^MemTotal:\s+(\d+)/m.exec(safeRead("/proc/meminfo"))?.[1] ?? "0");
  const wrk = Bun.spawnSync(["wrk", "--version"]);
  const wrkVersion = /wrk (\S+)/.exec(`${wrk.stdout.toString()}${wrk.stderr.toString()}`)?.[1] ?? "unknown";
  return {
    cpuModel: model.trim(),
    nproc: availableParallelism(),
    kernel: release(),
    bun: Bun.version,
    wrk: wrkVersion,
    memTotalMb: Math.round(memKb / 1024),
  };
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

interface CpuTimes {
  busy: number;
  total: number;
}

function cpuTimes(): CpuTimes {
  const line = safeRead("/proc/stat").split("\n")[0] ?? "";
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** Fraction (0–1) of all cores that were busy over `ms` milliseconds. */
export async function cpuBusy(ms: number): Promise<number> {
  const a = cpuTimes();
  await Bun.sleep(ms);
  const b = cpuTimes();
  const total = b.total - a.total;
  return total > 0 ? (b.busy - a.busy) / total : 0;
}

/**
 * Waits (at most `maxWaitMs`) until other processes leave the machine mostly
 * idle; returns the last busy fraction seen, which is recorded with the sample.
 * The machine is shared: a sample taken while something else ran is flagged.
 */
export async function waitForQuiet(threshold: number, maxWaitMs: number): Promise<number> {
  const deadline = Date.now() + maxWaitMs;
  let busy = await cpuBusy(500);
  while (busy > threshold && Date.now() < deadline) {
    await Bun.sleep(1000);
    busy = await cpuBusy(500);
  }
  return busy;
}

export function loadAverage(): number {
  return loadavg()[0] ?? 0;
}

/** Resident memory of a process in KiB (VmRSS), or null when it is gone. */
export function rssKb(pid: number): number | null {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(safeRead(`/proc/${pid}/status`));
  return match ? Number(match[1]) : null;
}

/** Busy and total ticks (USER_HZ) per core, from /proc/stat. */
export function perCoreTimes(): CpuTimes[] {
  const cores: CpuTimes[] = [];
  for (const line of safeRead("/proc/stat").split("\n")) {
    const match = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!match) continue;
    const f = (match[2] as string).trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal: interrupt time is left out of "busy" (the
    // loopback traffic we generate is mostly softirq, which no process is charged for); steal stays in.
    const busy = (f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[7] ?? 0);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    cores[Number(match[1])] = { busy, total };
  }
  return cores;
}

/** User + system CPU time of a process in USER_HZ ticks (0 when it is gone). */
export function processTicks(pid: number): number {
  const stat = safeRead(`/proc/${pid}/stat`);
  // The command name may contain spaces: fields are counted after its closing parenthesis.
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(rest[11] ?? 0) + Number(rest[12] ?? 0);
}

/** CPU ticks of a process and all its descendants (`--processes` children), threads included. */
export function treeTicks(pid: number): number {
  let ticks = processTicks(pid);
  for (const child of childPids(pid)) ticks += treeTicks(child);
  return ticks;
}

function childPids(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    for (const child of safeRead(`/proc/${pid}/task/${tid}/children`).trim().split(/\s+/)) {
      if (child) out.push(Number(child));
    }
  }
  return out;
}

/**
 * Measures how much of the machine other processes took while we measured:
 * the busy ticks of all cores minus those of our own processes (the server,
 * wrk, the WebSocket client). The machine is shared with other work; a sample
 * disturbed above a threshold is measured again (bench/run.ts).
 */
export class CpuWatch {
  private readonly start: CpuTimes[];
  constructor() {
    this.start = perCoreTimes();
  }
  /** Fraction (0–1) of one core's time, averaged over the cores, that other processes used. */
  othersFraction(ownTicks: number): number {
    const end = perCoreTimes();
    let busy = 0;
    let total = 0;
    end.forEach((core, i) => {
      const before = this.start[i] ?? { busy: 0, total: 0 };
      busy += core.busy - before.busy;
      total += core.total - before.total;
    });
    if (total <= 0) return 0;
    return Math.max(0, (busy - ownTicks) / total);
  }
}

/** CPU time of a finished subprocess in USER_HZ ticks (10 ms). */
export function subprocessTicks(usage: { cpuTime: { user: bigint; system: bigint } } | undefined): number {
  if (!usage) return 0;
  return Number(usage.cpuTime.user + usage.cpuTime.system) / 10_000;
}
