/**
 * Starting a variant's server (and checking its answer), and measuring it: wrk for the HTTP
 * scenarios, wrk plus a latency probe for the CPU one, the WebSocket client, or RSS growth.
 */
import { join } from "node:path";
import { type RunningServer, startServer } from "./proc.ts";
import type { Scenario, Variant } from "./scenarios.ts";
import { CpuWatch, rssKb, subprocessTicks, treeTicks } from "./system.ts";
import { runWrk } from "./wrk.ts";

export interface Settings {
  /** Where the webfw variants load webfw from: `dist` (the built package) or `src` (bench/run.ts `--webfw-from`). */
  webfwFrom?: string;
  repeat: number;
  duration: number;
  warmup: number;
  connections: number;
  cpuConnections: number;
  cpuIterations: number;
  wsConnections: number;
  wsWindow: number;
  rssRequests: number;
  /** Spawns per start-up sample (its median is the sample). */
  startupRuns: number;
  /** A sample where other processes took more than this fraction of the CPU is measured again. */
  noise: number;
  retries: number;
  quietWaitSeconds: number;
}

export interface Sample {
  scenario: string;
  variant: string;
  repeat: number;
  attempts: number;
  /** req/s (http, cpu load), messages/s (ws); null for rss. */
  value: number | null;
  p99Ms: number | null;
  healthP99Ms?: number | null;
  healthRps?: number;
  rssIdleKb?: number;
  rssMidKb?: number;
  rssEndKb?: number;
  requests?: number;
  /** Start-up samples: CPU milliseconds the server used until its first answer (median of the runs). */
  startupCpuMs?: number;
  /** Start-up samples: every run's wall-clock milliseconds to the first answer. */
  startupRunsMs?: number[];
  /** Non-2xx responses, socket errors, wrong echoes. */
  errors: number;
  /** Cores the server process (threads and children) kept busy. */
  serverCores?: number;
  /** Server CPU time per request or message, µs. */
  serverUsPerOp?: number | null;
  /** Fraction of the CPU other processes used during the measurement. */
  interference: number;
  error?: string;
}

const HERE = join(import.meta.dir, "..");
const SERVER_CORE = "0";
const LOAD_CORE = "1";

function serverFile(variant: Variant): string {
  return join(HERE, "servers", `${variant.server}.ts`);
}

function scriptPath(name: string): string {
  return join(HERE, "lua", name);
}

function serverCores(scenario: Scenario): string {
  return scenario.serverCpus ?? SERVER_CORE;
}

/**
 * Starts one variant's server for a scenario and checks its answer. The runner
 * starts every variant of a scenario before measuring any: idle, they cost
 * nothing, and measuring them in quick alternation exposes them to the same
 * machine noise. Returns the server, or the reason it cannot be measured.
 */
export async function launch(
  scenario: Scenario,
  variant: Variant,
  settings: Settings,
): Promise<RunningServer | { error: string }> {
  const env: Record<string, string> = {
    ...variant.env,
    BENCH_SCENARIO: scenario.name,
    BENCH_CPU_ITERATIONS: String(settings.cpuIterations),
  };
  // Several processes share one port (reusePort): they cannot each pick port 0.
  if (env.BENCH_ARGV?.includes("--processes")) env.BENCH_PORT = String(freePort());
  let server: RunningServer;
  try {
    server = await startServer(serverFile(variant), serverCores(scenario), env);
  } catch (error) {
    return { error: (error as Error).message.split("\n")[0] as string };
  }
  try {
    const problem = scenario.check ? await sanityCheck(server.url + scenario.path, scenario) : null;
    if (problem === null) return server;
    await server.stop();
    return { error: `wrong answer: ${problem}` };
  } catch (error) {
    await server.stop();
    return { error: `no answer: ${(error as Error).message}` };
  }
}

/** How busy the server was (cores) and its CPU time per request or message (µs): the second is
 * what a saturated server's throughput is the inverse of, and it stays meaningful when the load
 * generator, not the server, is the bottleneck (WebSocket echo). */
function serverUse(
  ticks: number,
  operations: number,
  seconds: number,
): { serverCores: number; serverUsPerOp: number | null } {
  return {
    serverCores: ticks / 100 / seconds,
    serverUsPerOp: operations > 0 ? (ticks * 10_000) / operations : null,
  };
}

/** One measurement of a running server (http, cpu, ws). RSS needs a fresh process: see `measureRss`. */
export async function measure(
  scenario: Scenario,
  variant: Variant,
  server: RunningServer,
  settings: Settings,
  repeat: number,
): Promise<Sample> {
  const base = emptySample(scenario, variant, repeat);
  try {
    switch (scenario.kind) {
      case "http":
        return { ...base, ...(await loadHttp(server, scenario, settings)) };
      case "cpu":
        return { ...base, ...(await loadCpu(server, scenario, settings)) };
      case "ws":
        return { ...base, ...(await loadWs(server, scenario, settings)) };
      case "rss":
      case "startup":
        throw new Error(`${scenario.kind} samples need a fresh server: measureRss / measureStartup`);
    }
  } catch (error) {
    return { ...base, error: (error as Error).message.split("\n")[0] };
  }
}

/** Idle RSS of a fresh server, then after N/2 and N requests. */
export async function measureRss(
  scenario: Scenario,
  variant: Variant,
  settings: Settings,
  repeat: number,
): Promise<Sample> {
  const base = emptySample(scenario, variant, repeat);
  const server = await launch(scenario, variant, settings);
  if ("error" in server) return { ...base, error: server.error };
  try {
    return { ...base, ...(await loadRss(server, scenario, settings)) };
  } catch (error) {
    return { ...base, error: (error as Error).message.split("\n")[0] };
  } finally {
    await server.stop();
  }
}

/**
 * Start to first answer: the client (bench/clients/first-answer.ts, pinned to the load core) spawns
 * the server `settings.startupRuns` times on a free port and times each spawn → first 200 of the
 * scenario's path. The sample's value is the median in milliseconds (lower is better).
 */
export async function measureStartup(
  scenario: Scenario,
  variant: Variant,
  settings: Settings,
  repeat: number,
): Promise<Sample> {
  const base = emptySample(scenario, variant, repeat);
  const env = { ...variant.env, BENCH_SCENARIO: scenario.name, NODE_ENV: "production" };
  try {
    const watch = new CpuWatch();
    const client = await runClient(
      [
        "first-answer.ts",
        `--file=${serverFile(variant)}`,
        `--port=${freePort()}`,
        `--path=${scenario.path}`,
        `--server-cpus=${serverCores(scenario)}`,
        `--runs=${settings.startupRuns}`,
        `--env=${JSON.stringify(env)}`,
      ],
      settings,
    );
    const result = client.result as { ms: number[]; cpuMs: number[] };
    const sorted = [...result.ms].sort((a, b) => a - b);
    const cpu = [...result.cpuMs].sort((a, b) => a - b);
    return {
      ...base,
      value: sorted[sorted.length >> 1] ?? null,
      startupCpuMs: cpu[cpu.length >> 1],
      startupRunsMs: result.ms,
      // The servers it started are children of the client: their CPU counts as the client's own.
      interference: watch.othersFraction(client.ticks),
    };
  } catch (error) {
    return { ...base, error: (error as Error).message.split("\n")[0] };
  }
}

/** The line of a client's stderr that says what went wrong: its `error:` line, not Bun's closing version line. */
function lastError(stderr: string): string {
  const lines = stderr.trim().split("\n");
  return lines.findLast((line) => line.startsWith("error:")) ?? lines.at(-1) ?? "";
}

/** A port nothing listens on right now (the kernel's choice for port 0). */
export function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null) });
  const port = probe.port as number;
  probe.stop(true);
  return port;
}

async function sanityCheck(url: string, scenario: Scenario): Promise<string | null> {
  const response = await fetch(url, { ...scenario.init, signal: AbortSignal.timeout(10_000) });
  return scenario.check ? scenario.check(response) : null;
}

async function loadHttp(
  server: RunningServer,
  scenario: Scenario,
  settings: Settings,
): Promise<Partial<Sample>> {
  const common = {
    url: server.url + scenario.path,
    cpus: LOAD_CORE,
    connections: settings.connections,
    script: scenario.script ? scriptPath(scenario.script) : undefined,
  };
  if (settings.warmup > 0) await runWrk({ ...common, duration: settings.warmup });
  const watch = new CpuWatch();
  const serverBefore = treeTicks(server.pid);
  const result = await runWrk({ ...common, duration: settings.duration, latency: true });
  const serverTicks = treeTicks(server.pid) - serverBefore;
  const own = serverTicks + result.cpuTicks;
  return {
    value: result.rps,
    p99Ms: result.p99,
    requests: result.requests,
    ...serverUse(serverTicks, result.requests, settings.duration),
    errors: result.non2xx + result.socketErrors,
    interference: watch.othersFraction(own),
  };
}

async function loadCpu(
  server: RunningServer,
  scenario: Scenario,
  settings: Settings,
): Promise<Partial<Sample>> {
  const load = { url: server.url + scenario.path, cpus: LOAD_CORE, connections: settings.cpuConnections };
  if (settings.warmup > 0) await runWrk({ ...load, duration: settings.warmup });
  const watch = new CpuWatch();
  const serverBefore = treeTicks(server.pid);
  // The load and an open-loop probe of /health (one request per 10 ms) run at the same time.
  const [result, health] = await Promise.all([
    runWrk({ ...load, duration: settings.duration }),
    runClient(
      [
        "latency-probe.ts",
        `--url=${server.url}/health`,
        `--duration=${settings.duration}`,
        "--interval-ms=10",
      ],
      settings,
    ),
  ]);
  const probe = health.result as { count: number; p99: number; errors: number };
  const serverTicks = treeTicks(server.pid) - serverBefore;
  const own = serverTicks + result.cpuTicks + health.ticks;
  return {
    ...serverUse(serverTicks, result.requests, settings.duration),
    value: result.rps,
    p99Ms: null,
    healthP99Ms: probe.p99,
    healthRps: probe.count / settings.duration,
    requests: result.requests,
    errors: result.non2xx + result.socketErrors + probe.errors,
    interference: watch.othersFraction(own),
  };
}

/**
 * Runs a Bun client script from bench/clients/ pinned to the load core; returns its JSON line and CPU
 * ticks. With `process.env` passed on by hand: Bun 1.4.5's `Bun.spawn` without `env` gives the child
 * the environment this process started with, not what bench/run.ts set since (`BENCH_WEBFW`), so
 * the start-up client's servers ran webfw from src/ (oven-sh/bun#34972; docs/performance.md, "The
 * start-up row measured the sources").
 */
export async function runClient(
  args: string[],
  settings: Pick<Settings, "duration" | "warmup">,
): Promise<{ result: unknown; ticks: number }> {
  const [script, ...rest] = args;
  const proc = Bun.spawn(
    ["taskset", "-c", LOAD_CORE, process.execPath, join(HERE, "clients", script as string), ...rest],
    {
      env: { ...process.env },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const timer = setTimeout(() => proc.kill("SIGKILL"), (settings.duration + settings.warmup + 30) * 1000);
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const code = await proc.exited;
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${script} exited with ${code}: ${lastError(err)}`);
  return {
    result: JSON.parse(out.trim().split("\n").at(-1) ?? "{}"),
    ticks: subprocessTicks(proc.resourceUsage()),
  };
}

async function loadWs(
  server: RunningServer,
  scenario: Scenario,
  settings: Settings,
): Promise<Partial<Sample>> {
  const url = `${server.url.replace("http", "ws")}${scenario.path}`;
  const watch = new CpuWatch();
  const serverBefore = treeTicks(server.pid);
  const client = await runClient(
    [
      "ws-echo.ts",
      `--url=${url}`,
      `--connections=${settings.wsConnections}`,
      `--window=${settings.wsWindow}`,
      `--duration=${settings.duration}`,
      `--warmup=${settings.warmup}`,
    ],
    settings,
  );
  const result = client.result as {
    rate: number;
    messages: number;
    mismatches: number;
    totalMessages: number;
    totalSeconds: number;
  };
  const serverTicks = treeTicks(server.pid) - serverBefore;
  const own = serverTicks + client.ticks;
  return {
    ...serverUse(serverTicks, result.totalMessages, result.totalSeconds),
    value: result.rate,
    requests: result.messages,
    errors: result.mismatches,
    interference: watch.othersFraction(own),
  };
}

async function loadRss(
  server: RunningServer,
  scenario: Scenario,
  settings: Settings,
): Promise<Partial<Sample>> {
  await Bun.sleep(1000);
  const idle = rssKb(server.pid) ?? 0;
  const half = Math.max(1, Math.floor(settings.rssRequests / 2));
  const phase = async () => {
    // The Lua script ends wrk after `half` responses; -d is only a safety cap.
    await runWrk({
      url: server.url + scenario.path,
      cpus: LOAD_CORE,
      connections: settings.connections,
      duration: Math.max(60, Math.ceil(half / 2000)),
      script: scriptPath("stop-after.lua"),
      env: { BENCH_REQUESTS: String(half) },
    });
    await Bun.sleep(500);
    return rssKb(server.pid) ?? 0;
  };
  const mid = await phase();
  const end = await phase();
  return { rssIdleKb: idle, rssMidKb: mid, rssEndKb: end, requests: half * 2 };
}

/** A sample with nothing measured yet. */
function emptySample(scenario: Scenario, variant: Variant, repeat: number): Sample {
  return {
    scenario: scenario.name,
    variant: variant.id,
    repeat,
    attempts: 1,
    value: null,
    p99Ms: null,
    errors: 0,
    interference: 0,
  };
}
