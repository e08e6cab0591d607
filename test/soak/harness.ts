/**
 * Shared pieces of the soak suites: configuration from the environment,
 * starting the mixed app as its own process, driving wrk, and reading a
 * process's RSS and open file descriptors from /proc.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { launchProgram, type Program } from "../faults/spawn.ts";

export const MIXED_APP = join(import.meta.dir, "fixtures/mixed-app.ts");
export const WRK_SCRIPT = join(import.meta.dir, "mixed.lua");

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return value;
}

/** Knobs (all optional): the defaults are what the issue asks for and what CI runs. */
export const SOAK = {
  /** wrk duration in seconds. */
  seconds: envNumber("WEBFW_SOAK_SECONDS", 60),
  connections: envNumber("WEBFW_SOAK_CONNECTIONS", 256),
  /** Requests for the RSS check. */
  requests: envNumber("WEBFW_SOAK_REQUESTS", 1_000_000),
  /** WebSocket connect/disconnect cycles. */
  wsCycles: envNumber("WEBFW_SOAK_WS_CYCLES", 10_000),
  /** Slowloris connections. */
  slowClients: envNumber("WEBFW_SOAK_SLOW_CLIENTS", 500),
};

export function startMixed(env: Record<string, string> = {}): Promise<Program> {
  return launchProgram(MIXED_APP, ["--log-level", "WARNING"], { env, healthPath: "/" });
}

export interface WrkResult {
  requests: number;
  requestsPerSec: number;
  status5xx: number;
  status4xx: number;
  socketErrors: { connect: number; read: number; write: number; timeout: number };
  p99Us: number;
  raw: string;
}

/** Runs wrk against `url` with the mixed script; wrk goes on CPU 1 when taskset exists (the server is not pinned). */
export async function runWrk(url: string, seconds: number, connections: number): Promise<WrkResult> {
  const threads = Math.min(2, connections);
  const cmd = [
    "wrk",
    "-t",
    String(threads),
    "-c",
    String(connections),
    "-d",
    `${seconds}s`,
    "--timeout",
    "10s",
    "-s",
    WRK_SCRIPT,
    url,
  ];
  const proc = Bun.spawn(Bun.which("taskset") ? ["taskset", "-c", "1", ...cmd] : cmd, {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [raw, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`wrk exited ${code}: ${err}`);
  const num = (label: string) => Number(new RegExp(`^${label} (\\d+)`, "m").exec(raw)?.[1] ?? Number.NaN);
  const sock = /^SOCKET_ERRORS (\d+) (\d+) (\d+) (\d+)/m.exec(raw);
  return {
    requests: num("TOTAL_REQUESTS"),
    requestsPerSec: Number(/Requests\/sec:\s+([\d.]+)/.exec(raw)?.[1] ?? Number.NaN),
    status5xx: num("STATUS_5XX"),
    status4xx: num("STATUS_4XX"),
    socketErrors: {
      connect: Number(sock?.[1]),
      read: Number(sock?.[2]),
      write: Number(sock?.[3]),
      timeout: Number(sock?.[4]),
    },
    p99Us: num("LATENCY_P99_US"),
    raw,
  };
}

/** Resident set size of a process, in bytes. */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) * 1024;
}

/** Open file descriptors of a process (sockets included). */
export function fdCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Full GC in the app (its test-only /gc route), then its RSS from /proc. */
export async function settledRss(program: Program): Promise<number> {
  return (await settle(program)).rss;
}

/** Full GCs in the app, then its RSS (from /proc) and live JavaScript object count. */
export async function settle(program: Program): Promise<{ rss: number; objects: number }> {
  let objects = 0;
  for (let i = 0; i < 3; i++) {
    const reply = await fetch(`${program.url}/gc`, { headers: { connection: "close" } });
    objects = ((await reply.json()) as { objects: number }).objects;
    await Bun.sleep(200);
  }
  return { rss: rssOf(program.proc.pid), objects };
}

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

export type { Program } from "../faults/spawn.ts";
