/** Running `wrk` pinned to a core, with a hard time limit, and reading its summary. */
import { subprocessTicks } from "./system.ts";

export interface WrkOptions {
  url: string;
  cpus: string;
  duration: number;
  connections: number;
  threads?: number;
  script?: string;
  latency?: boolean;
  env?: Record<string, string>;
  /** Extra seconds before the process is killed (wrk itself stops at `duration`). */
  graceSeconds?: number;
}

export interface WrkResult {
  rps: number;
  requests: number;
  /** Latency percentiles in ms (only with `latency: true`). */
  p50: number | null;
  p99: number | null;
  non2xx: number;
  socketErrors: number;
  /** CPU time wrk used, in USER_HZ ticks (for the interference estimate). */
  cpuTicks: number;
  raw: string;
}

export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const args = [
    "taskset",
    "-c",
    options.cpus,
    "wrk",
    `-t${options.threads ?? 1}`,
    `-c${options.connections}`,
    `-d${options.duration}s`,
    "--timeout",
    "10s",
  ];
  if (options.latency) args.push("--latency");
  if (options.script) args.push("-s", options.script);
  args.push(options.url);
  const proc = Bun.spawn(args, { env: { ...process.env, ...options.env }, stdout: "pipe", stderr: "pipe" });
  const limit = (options.duration + (options.graceSeconds ?? 20)) * 1000;
  const timer = setTimeout(() => proc.kill("SIGKILL"), limit);
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const code = await proc.exited;
  clearTimeout(timer);
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${err || out}`);
  return { ...parseWrk(out), cpuTicks: subprocessTicks(proc.resourceUsage()) };
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function latencyMs(text: string, percentile: string): number | null {
  const match = new RegExp(`^\\s+${percentile}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(text);
  if (!match) return null;
  return Number(match[1]) * (UNIT_MS[match[2] as string] ?? 1);
}

export function parseWrk(text: string): Omit<WrkResult, "cpuTicks"> {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? Number.NaN);
  const requests = Number(/(\d+) requests in/.exec(text)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketErrors = socket ? socket.slice(1, 5).reduce((sum, n) => sum + Number(n), 0) : 0;
  return {
    rps,
    requests,
    p50: latencyMs(text, "50"),
    p99: latencyMs(text, "99"),
    non2xx,
    socketErrors,
    raw: text,
  };
}
