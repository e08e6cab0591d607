/**
 * The instruction-count regression gate (docs/performance.md, "The regression gate"): user-space
 * instructions per request of every request scenario, counted by valgrind's callgrind, compared
 * with the baseline committed in bench/gate/baseline.json. Instructions, unlike requests per
 * second, do not move with the machine's load, so the gate runs on a shared CI machine.
 *
 * One server per scenario under callgrind: a warm-up (the JIT reaches its steady tiers), the
 * counters zeroed (`callgrind_control --zero`), a measured run, a dump. Per request = the serving
 * thread's instructions / the measured requests. One connection (`h2load -c 1`) so that every
 * request is one turn of the event loop. Whatever depends on the clock rather than the requests is
 * taken out, so that the same code gives the same count on a fast machine and a slow, loaded one
 * (docs/performance.md, "The regression gate"): the JIT compiles on the serving thread
 * (`BUN_JSC_useConcurrentJIT=0`), the collector runs there too when allocation asks for it
 * (`BUN_JSC_useConcurrentGC=0`) and never from Bun's once-a-second timer (`BUN_GC_TIMER_DISABLE`),
 * and only the serving thread is counted: the allocator's scavenger and Bun's thread pool wake on
 * timers, and their share swung from 0.1 to 2.7 million instructions in one window of `const`.
 *
 *   bun bench/gate.ts                      check every scenario; exit 1 past the tolerance
 *   bun bench/gate.ts --only hello,json    some scenarios
 *   bun bench/gate.ts --update --why "…"   measure (lowest of --repeat 2 runs) and write the baseline,
 *                                          with the reason, to bench/gate/baseline.json and
 *                                          bench/gate/CHANGES.md
 *   bun bench/gate.ts --only json --server raw --env BENCH_JSON_LADDER=bytes-const
 *                                          one peer's server, counts only (bench/lib/json-ladder.ts)
 *
 * A scenario over the tolerance is measured again (up to --tries times) and its lowest count kept:
 * a real regression is over on every try, a one-off disturbance is not.
 * Needs valgrind and h2load (Debian: valgrind, nghttp2-client).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const ROOT = join(import.meta.dir, "..");
const BASELINE = join(import.meta.dir, "gate", "baseline.json");
const CHANGES = join(import.meta.dir, "gate", "CHANGES.md");
const JSON_BODY = '{"id":42,"name":"bench","tags":["a","b","c"],"nested":{"ok":true,"ratio":0.5}}';

/** The settings that make a count depend on the requests only, not on the clock (see the header). */
const STEADY_ENV: Record<string, string> = {
  BUN_JSC_useConcurrentJIT: "0",
  BUN_JSC_useConcurrentGC: "0",
  BUN_GC_TIMER_DISABLE: "1",
  BUN_IDLE_GC_SECONDS: "0",
};

interface GateScenario {
  /** What the row measures (docs/performance.md's request scenarios, as the README's table names them). */
  title: string;
  server: "webfw" | "raw" | "elysia" | "hono";
  env: Record<string, string>;
  /** The same work on the peers' servers (`--peers`): their BENCH_SCENARIO. */
  peer?: string;
  path: string;
  post?: string;
}

/** The request scenarios; `raw` rows are the yardstick (raw Bun.serve doing the same), gated too. */
export const GATE_SCENARIOS: Record<string, GateScenario> = {
  hello: {
    title: "GET / returning a string",
    server: "webfw",
    env: { BENCH_SCENARIO: "hello" },
    peer: "hello",
    path: "/",
  },
  const: {
    title: "GET / const route",
    server: "webfw",
    env: { BENCH_SCENARIO: "const" },
    peer: "const",
    path: "/",
  },
  params: {
    title: "GET /id/:id?name= + a header",
    server: "webfw",
    env: { BENCH_SCENARIO: "params" },
    peer: "params",
    path: "/id/42?name=bench",
  },
  json: {
    title: "POST /json echo",
    server: "webfw",
    env: { BENCH_SCENARIO: "json" },
    peer: "json",
    path: "/json",
    post: JSON_BODY,
  },
  middleware: {
    title: "one global before + after middleware",
    server: "webfw",
    env: { BENCH_SCENARIO: "middleware" },
    peer: "middleware",
    path: "/",
  },
  stack: {
    title: "production stack: request ids, an in-memory rate limit never hit, metrics",
    server: "webfw",
    env: { BENCH_SCENARIO: "prod", BENCH_PROD: "stack" },
    peer: "stack",
    path: "/",
  },
  "raw-hello": { title: "raw Bun.serve GET /", server: "raw", env: { BENCH_SCENARIO: "hello" }, path: "/" },
};

interface Baseline {
  tolerance: number;
  warmup: number;
  requests: number;
  scenarios: Record<string, number>;
}

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    update: { type: "boolean", default: false },
    why: { type: "string" },
    tries: { type: "string", default: "3" },
    repeat: { type: "string", default: "2" },
    env: { type: "string" },
    warmup: { type: "string" },
    requests: { type: "string" },
    peers: { type: "boolean", default: false },
    server: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
/** `--env A=1,B=2`: extra environment for every server (a prototype measured against the baseline). */
const extraEnv: Record<string, string> = Object.fromEntries(
  (values.env ?? "")
    .split(",")
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
);
if (values.update && values.env) {
  console.error("gate: --env measures a prototype; it cannot --update the baseline");
  process.exit(2);
}
if (values.update && (values.warmup || values.requests)) {
  console.error(
    "gate: --warmup/--requests try other counts; the baseline's are edited in bench/gate/baseline.json",
  );
  process.exit(2);
}
if (values.help) {
  console.log(`bun bench/gate.ts [options]   instructions per request (callgrind) against bench/gate/baseline.json

  --only LIST       scenarios, comma-separated (${Object.keys(GATE_SCENARIOS).join(", ")})
  --tries N         measurements of a scenario over the tolerance, lowest kept (default 3)
  --update          measure and write the baseline (needs --why)
  --why TEXT        the reason, written to bench/gate/CHANGES.md with the before/after table
  --repeat N        runs per scenario with --update, lowest kept (default 2)
  --peers           no check: the same scenarios on raw Bun, Elysia and Hono (bench/servers/), a
                    table of instructions per request beside webfw's (needs bench/'s npm install)
  --warmup N        warm-up requests instead of the baseline's (a trial of other settings; no --update)
  --requests N      measured requests instead of the baseline's (the same)
  --env A=1,B=2     extra environment for every server: a prototype (e.g. BENCH_JSON_READ=native)
                    counted against the baseline, never written to it
  --server NAME     no check: count one peer's server (raw, elysia, hono) on the scenarios, with
                    --env for its prototypes (e.g. BENCH_JSON_LADDER=<step>, bench/lib/json-ladder.ts)
  -h, --help`);
  process.exit(0);
}

function need(program: string): void {
  if (spawnSync("sh", ["-c", `command -v ${program}`]).status !== 0) {
    console.error(`gate: ${program} is not installed (Debian: valgrind, nghttp2-client)`);
    process.exit(2);
  }
}

/** Start-up under valgrind takes a minute on a quiet machine and several on a busy one (load 20 seen). */
const START_LIMIT_MS = 600_000;

async function waitForPort(file: string, exited: () => boolean): Promise<number> {
  for (let i = 0; i < START_LIMIT_MS / 100 && !exited(); i++) {
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    const port = /"port":(\d+)/.exec(text)?.[1];
    if (port) return Number(port);
    await Bun.sleep(100);
  }
  throw new Error("the server did not start under valgrind");
}

function load(port: number, scenario: GateScenario, count: number, dir: string): void {
  const args = ["--h1", "-n", String(count), "-c", "1", "-t", "1"];
  if (scenario.post !== undefined) {
    const body = join(dir, "body.json");
    writeFileSync(body, scenario.post);
    args.push("-d", body, "-H", "content-type: application/json");
  }
  const run = spawnSync("h2load", [...args, `http://127.0.0.1:${port}${scenario.path}`], {
    encoding: "utf8",
  });
  if (!run.stdout.includes(`${count} succeeded`)) {
    throw new Error(`not every request succeeded:\n${run.stdout}\n${run.stderr}`);
  }
}

function control(pid: number, ...args: string[]): void {
  const run = spawnSync("callgrind_control", [...args, String(pid)], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`callgrind_control ${args.join(" ")}: ${run.stderr}`);
}

/** Instructions per request of one scenario: one server, warm-up, zero, measured run, dump. */
async function measure(
  name: string,
  warmup: number,
  requests: number,
  server?: GateScenario["server"],
): Promise<number> {
  const gated = GATE_SCENARIOS[name];
  if (gated === undefined) throw new Error(`unknown scenario ${name}`);
  // `--peers`: the same requests to a peer's server doing the same work (bench/servers/<peer>.ts).
  const scenario: GateScenario =
    server === undefined ? gated : { ...gated, server, env: { BENCH_SCENARIO: gated.peer ?? name } };
  const dir = mkdtempSync(join(tmpdir(), "webfw-gate-"));
  const out = join(dir, "callgrind.out");
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      "--separate-threads=yes",
      `--callgrind-out-file=${out}`,
      process.execPath,
      join(ROOT, "bench/servers", `${scenario.server}.ts`),
    ],
    {
      env: {
        ...process.env,
        ...scenario.env,
        ...extraEnv,
        NODE_ENV: "production",
        ...STEADY_ENV,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  let exited = false;
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk;
    writeFileSync(join(dir, "stdout"), stdout);
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  child.on("exit", () => {
    exited = true;
  });
  try {
    const port = await waitForPort(join(dir, "stdout"), () => exited).catch((error: Error) => {
      throw new Error(`${name}: ${error.message}\n${stderr}`);
    });
    const pid = child.pid as number;
    load(port, scenario, warmup, dir);
    control(pid, "--zero");
    load(port, scenario, requests, dir);
    control(pid, "--dump=gate");
    // `--separate-threads=yes` writes one file per thread and dump: callgrind.out.<part>-<thread>.
    // The gate's dump is part 1 (the zeroing writes none); thread 01 serves the requests.
    const main = join(dir, "callgrind.out.1-01");
    if (!existsSync(main)) throw new Error(`${name}: callgrind wrote no dump for the serving thread`);
    const totals = /^(?:summary|totals):\s+(\d+)/m.exec(readFileSync(main, "utf8"));
    if (totals?.[1] === undefined) throw new Error(`${name}: no totals in the dump`);
    return Math.round(Number(totals[1]) / requests);
  } finally {
    child.kill("SIGKILL");
    await new Promise((resolve) => (exited ? resolve(null) : child.once("exit", resolve)));
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One measurement, or `Infinity` when valgrind or the server failed (valgrind under JSC very rarely
 * dies at start-up): the callers try again, and a scenario fails only when no try gave a count.
 */
async function attempt(
  name: string,
  warmup: number,
  requests: number,
  server?: GateScenario["server"],
): Promise<number> {
  try {
    return await measure(name, warmup, requests, server);
  } catch (error) {
    console.error(`gate: ${name}: ${(error as Error).message.split("\n")[0]}; trying again`);
    return Number.POSITIVE_INFINITY;
  }
}

need("valgrind");
need("h2load");
const baseline: Baseline = existsSync(BASELINE)
  ? JSON.parse(readFileSync(BASELINE, "utf8"))
  : { tolerance: 0.03, warmup: 3000, requests: 10000, scenarios: {} };
if (values.warmup) baseline.warmup = Number(values.warmup);
if (values.requests) baseline.requests = Number(values.requests);
const names = values.only ? values.only.split(",") : Object.keys(GATE_SCENARIOS);
const tries = Number(values.tries);

if (values.update) {
  if (!values.why) {
    console.error('gate: --update needs --why "what changed and why the new counts are right"');
    process.exit(2);
  }
  const rows: string[] = [];
  for (const name of names) {
    // The lowest of a few runs, as the check keeps the lowest of its tries.
    const runs: number[] = [];
    for (let run = 0; run < Number(values.repeat); run++) {
      runs.push(await attempt(name, baseline.warmup, baseline.requests));
    }
    const count = Math.min(...runs);
    console.log(`${name}: runs ${runs.join(", ")}`);
    if (!Number.isFinite(count)) {
      console.error(`gate: ${name}: no run gave a count; the baseline is left as it was`);
      process.exit(1);
    }
    const before = baseline.scenarios[name];
    rows.push(`| ${name} | ${before ?? "–"} | ${count} | ${before ? (count / before).toFixed(3) : "–"} |`);
    baseline.scenarios[name] = count;
    console.log(`${name}: ${count} instructions / request (was ${before ?? "none"})`);
  }
  mkdirSync(join(import.meta.dir, "gate"), { recursive: true });
  writeFileSync(BASELINE, `${JSON.stringify(baseline, null, 2)}\n`);
  const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], {
    cwd: ROOT,
    encoding: "utf8",
  }).stdout.trim();
  const entry = [
    `## ${new Date().toISOString().slice(0, 10)} (on ${commit})`,
    "",
    values.why,
    "",
    "| scenario | before | after | ratio |",
    "|---|--:|--:|--:|",
    ...rows,
    "",
  ].join("\n");
  const old = existsSync(CHANGES) ? readFileSync(CHANGES, "utf8") : "# Baseline changes\n\n";
  const [head, ...rest] = old.split(/\n(?=## )/);
  writeFileSync(CHANGES, [head?.trimEnd(), "", entry, ...rest].join("\n"));
  process.exit(0);
}

if (values.server !== undefined) {
  // One peer's server, e.g. a step of the json ladder: counts only, nothing compared.
  const server = values.server as GateScenario["server"];
  if (!["raw", "elysia", "hono"].includes(server)) {
    console.error("gate: --server is raw, elysia or hono");
    process.exit(2);
  }
  for (const name of names) {
    const count = await attempt(name, baseline.warmup, baseline.requests, server);
    console.log(`${name} on ${server} ${JSON.stringify(extraEnv)}: ${count} instructions / request`);
  }
  process.exit(0);
}

if (values.peers) {
  // The steady yardstick against the peers (docs/performance.md, "The regression gate"): the same
  // requests, warm-up and window, one server per row; nothing is compared with the baseline.
  const peers: GateScenario["server"][] = ["raw", "elysia", "hono"];
  console.log("| scenario | webfw | raw | Elysia | Hono | webfw ÷ raw | webfw ÷ Elysia | webfw ÷ Hono |");
  console.log("|---|--:|--:|--:|--:|--:|--:|--:|");
  for (const name of names) {
    if (GATE_SCENARIOS[name]?.peer === undefined) continue;
    // webfw's count and raw Bun's `GET /` are the baseline's (measured the same way); the rest now.
    const known: Partial<Record<GateScenario["server"], number | undefined>> = {
      webfw: baseline.scenarios[name],
      raw: name === "hello" ? baseline.scenarios["raw-hello"] : undefined,
    };
    const counts = [known.webfw ?? (await attempt(name, baseline.warmup, baseline.requests))];
    for (const peer of peers)
      counts.push(known[peer] ?? (await attempt(name, baseline.warmup, baseline.requests, peer)));
    const [own = 0, ...others] = counts;
    const ratios = others.map((other) => (own / other).toFixed(3));
    console.log(`| ${name} | ${counts.join(" | ")} | ${ratios.join(" | ")} |`);
  }
  process.exit(0);
}

let failed = 0;
console.log(`| scenario | baseline | now | ratio | tolerance ${(baseline.tolerance * 100).toFixed(0)} % |`);
console.log("|---|--:|--:|--:|---|");
for (const name of names) {
  const base = baseline.scenarios[name];
  if (base === undefined) {
    console.log(`| ${name} | none | | | no baseline: run with --update |`);
    failed++;
    continue;
  }
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < tries && best > base * (1 + baseline.tolerance); round++) {
    best = Math.min(best, await attempt(name, baseline.warmup, baseline.requests));
  }
  const ratio = best / base;
  const ok = ratio <= 1 + baseline.tolerance;
  if (!ok) failed++;
  console.log(`| ${name} | ${base} | ${best} | ${ratio.toFixed(3)} | ${ok ? "ok" : "REGRESSION"} |`);
}
if (failed > 0) {
  console.log(
    `\n${failed} scenario(s) over the baseline. If the growth is intended, update the baseline in the same commit:\n` +
      '  bun bench/gate.ts --update --why "…"   (writes bench/gate/baseline.json and bench/gate/CHANGES.md)',
  );
  process.exit(1);
}
