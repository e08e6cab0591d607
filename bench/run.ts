/**
 * The webfw benchmark (issue 9, docs/performance.md): `bun run bench [flags]`.
 *
 * Each server variant runs as its own process pinned to core 0 with taskset;
 * wrk (or the WebSocket client) is pinned to core 1. Variants alternate
 * within every repeat (rotated each time), every load run has a fixed
 * duration, and every server is stopped after its measurement. Results go to
 * bench/results/ as JSON and Markdown (timestamped, plus latest.*).
 *
 *   bun run bench                                 # every scenario, 3 × 5 s
 *   bun run bench --only hello,params --repeat 5 --duration 10
 *   bun run bench --rss-requests 1000000          # the 1M-request RSS check
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildBundle } from "../scripts/build.ts";
import { Webfw } from "../src/app.ts";
import { extractTree, revisionBeforeObservability } from "./lib/before-tree.ts";
import { calibrate } from "./lib/cpu-work.ts";
import { launch, measure, measureRss, measureStartup, type Sample, type Settings } from "./lib/measure.ts";
import type { RunningServer } from "./lib/proc.ts";
import { checkTargets, markdown, type Report, rankEngines, summarise } from "./lib/report.ts";
import { SCENARIOS, type Scenario } from "./lib/scenarios.ts";
import { describeMachine, waitForQuiet } from "./lib/system.ts";

const HELP = `bun run bench [options]

  --only LIST            scenarios, comma-separated (${SCENARIOS.map((s) => s.name).join(", ")})
  --variants LIST        only these variant ids (raw, webfw-bun, webfw-ffi, webfw-js, elysia, hono, …)
  --repeat N             repeats per variant (default 3)
  --duration S           seconds per measurement (default 5)
  --warmup S             warm-up seconds before each measurement (default 1)
  --connections N        wrk connections (default 64)
  --cpu-connections N    wrk connections on the CPU-bound route (default 8)
  --cpu-ms MS            work per CPU-bound request, calibrated at start (default 2)
  --ws-connections N     WebSocket connections (default 16)
  --ws-window N          messages in flight per WebSocket (default 4)
  --rss-requests N       requests for the RSS-growth check (default 200000; the target says 1000000)
  --startup-runs N       server spawns per start-to-first-answer sample, median kept (default 5)
  --noise F              re-measure a sample when other processes used more than F of the CPU (default 0.1)
  --retries N            re-measurements of a noisy sample (default 2)
  --quiet-wait S         wait up to S seconds for the machine to be quiet before each sample (default 20)
  --webfw-from WHERE     dist (default: the built package, as users get it; built first with
                         scripts/build.ts) or src (the TypeScript sources, as the gate runs them)
  --out DIR              results directory (default bench/results)
  --render FILE.json     re-render a saved run's Markdown (no measuring): writes FILE.md
  -h, --help`;

function fail(message: string): never {
  console.error(`bench: ${message}\n\n${HELP}`);
  process.exit(2);
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    strict: true,
    options: {
      only: { type: "string" },
      variants: { type: "string" },
      repeat: { type: "string", default: "3" },
      duration: { type: "string", default: "5" },
      warmup: { type: "string", default: "1" },
      connections: { type: "string", default: "64" },
      "cpu-connections": { type: "string", default: "8" },
      "cpu-ms": { type: "string", default: "2" },
      "ws-connections": { type: "string", default: "16" },
      "ws-window": { type: "string", default: "4" },
      "rss-requests": { type: "string", default: "200000" },
      "startup-runs": { type: "string", default: "5" },
      noise: { type: "string", default: "0.1" },
      retries: { type: "string", default: "2" },
      "quiet-wait": { type: "string", default: "20" },
      out: { type: "string" },
      "webfw-from": { type: "string", default: "dist" },
      render: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}
try {
  parsed = parse();
} catch (error) {
  fail((error as Error).message);
}
const opts = parsed.values;
if (opts.help) {
  console.log(HELP);
  process.exit(0);
}

function num(name: string, raw: string | undefined, min: number, integer = true): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n)))
    fail(`--${name} must be ${integer ? "an integer" : "a number"} ≥ ${min}`);
  return n;
}

if (opts.render) {
  // Recomputes the tables from the saved samples with the current report code.
  const saved = JSON.parse(readFileSync(opts.render, "utf8")) as Report;
  const names = new Set(saved.samples.map((sample) => sample.scenario));
  const redone = SCENARIOS.filter((scenario) => names.has(scenario.name)).map((scenario) =>
    summarise(
      scenario,
      saved.samples.filter((sample) => sample.scenario === scenario.name),
    ),
  );
  const report: Report = {
    ...saved,
    results: redone,
    targets: checkTargets(redone),
    engines: rankEngines(redone),
  };
  const md = markdown(report);
  writeFileSync(opts.render.replace(/\.json$/, ".md"), md);
  writeFileSync(opts.render, `${JSON.stringify(report, null, 2)}\n`);
  console.log(md);
  process.exit(0);
}

const only = opts.only?.split(",").map((s) => s.trim());
for (const name of only ?? [])
  if (!SCENARIOS.some((s) => s.name === name)) fail(`unknown scenario '${name}'`);
const variantFilter = opts.variants?.split(",").map((s) => s.trim());

const cpuMs = num("cpu-ms", opts["cpu-ms"], 0.1, false);
const settings: Settings = {
  repeat: num("repeat", opts.repeat, 1),
  duration: num("duration", opts.duration, 1),
  warmup: num("warmup", opts.warmup, 0),
  connections: num("connections", opts.connections, 1),
  cpuConnections: num("cpu-connections", opts["cpu-connections"], 1),
  cpuIterations: 0,
  wsConnections: num("ws-connections", opts["ws-connections"], 1),
  wsWindow: num("ws-window", opts["ws-window"], 1),
  rssRequests: num("rss-requests", opts["rss-requests"], 2),
  startupRuns: num("startup-runs", opts["startup-runs"], 1),
  noise: num("noise", opts.noise, 0, false),
  retries: num("retries", opts.retries, 0),
  quietWaitSeconds: num("quiet-wait", opts["quiet-wait"], 0),
  webfwFrom: opts["webfw-from"],
};

const BENCH = import.meta.dir;
const outDir = opts.out ?? join(BENCH, "results");

/** The peers come from bench/package.json only (exact versions, lockfile), installed once if missing. */
function ensurePeers(): void {
  if (existsSync(join(BENCH, "node_modules", "elysia")) && existsSync(join(BENCH, "node_modules", "hono")))
    return;
  console.log("bench: installing bench/package.json (Elysia, Hono) …");
  // `npm install` rather than `npm ci`, as .ci/run does: the versions are exact in package.json anyway.
  const install = Bun.spawnSync(["npm", "install", "--no-audit", "--no-fund"], {
    cwd: BENCH,
    stdout: "inherit",
    stderr: "inherit",
  });
  if (install.exitCode !== 0) fail("could not install bench/package.json (run `cd bench && npm install`)");
}

function ensureTools(): void {
  for (const tool of ["wrk", "taskset"]) {
    if (!Bun.which(tool))
      fail(
        `'${tool}' is not installed (Debian: apt-get install -y ${tool === "wrk" ? "wrk" : "util-linux"})`,
      );
  }
}

/**
 * The webfw variants run the package as users install it (docs/packaging.md): bench/servers/webfw.ts
 * imports dist/ under `BENCH_WEBFW=dist`, rebuilt here so it matches the sources being measured.
 */
async function prepareWebfw(from: string): Promise<void> {
  if (from !== "dist" && from !== "src") fail("--webfw-from must be dist or src");
  process.env.BENCH_WEBFW = from;
  if (from === "dist") await buildBundle(join(BENCH, "..", "dist"));
  console.log(`bench: webfw from ${from === "dist" ? "dist/ (the built package)" : "src/"}`);
}

ensureTools();
ensurePeers();
await prepareWebfw(opts["webfw-from"] as string);

const scenarios: Scenario[] = SCENARIOS.filter((s) => !only || only.includes(s.name)).map((s) => ({
  ...s,
  variants: s.variants.filter((v) => !variantFilter || variantFilter.includes(v.id) || v.id === s.baseline),
}));

// The WebSocket scenario needs app.websocket (src/router/router-base.ts).
const wsUnavailable =
  typeof (Webfw.prototype as unknown as Record<string, unknown>).websocket === "function"
    ? undefined
    : "webfw has no app.websocket yet";

// The observability scenario: the pre-observability source tree for `webfw-before`, and an OTLP sink
// that accepts what the `--otel` variant's exporter sends (it runs in this process, off the server's core).
const cleanups: (() => void)[] = [];
process.on("exit", () => {
  for (const cleanup of cleanups) cleanup();
});
if (scenarios.some((s) => s.variants.some((v) => v.server === "webfw-before"))) {
  const rev = process.env.BENCH_BEFORE_REV ?? revisionBeforeObservability();
  if (rev === null) fail("cannot find the commit before observability (set BENCH_BEFORE_REV)");
  const tree = extractTree(rev);
  cleanups.push(tree.remove);
  process.env.BENCH_BEFORE_ROOT = tree.root;
  console.log(`webfw-before: the source tree of ${rev}`);
}
if (scenarios.some((s) => s.variants.some((v) => v.env.BENCH_ARGV?.includes("--otel")))) {
  let spans = 0;
  const sink = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      spans += (await request.arrayBuffer()).byteLength > 0 ? 1 : 0;
      return new Response(new Uint8Array(0), { headers: { "content-type": "application/x-protobuf" } });
    },
  });
  process.env.BENCH_OTLP_SINK = `http://127.0.0.1:${sink.port}`;
  cleanups.push(() => {
    console.log(`OTLP sink: ${spans} export requests received`);
    void sink.stop(true);
  });
}

settings.cpuIterations = calibrate(cpuMs);
const machine = describeMachine();
console.log(
  `webfw bench: ${machine.cpuModel}, ${machine.nproc} vCPU, Bun ${machine.bun}, wrk ${machine.wrk}; ` +
    `${settings.repeat} × ${settings.duration} s; cpu route ${settings.cpuIterations} iterations ≈ ${cpuMs} ms`,
);

const samples: Sample[] = [];

/** Measures until the sample was taken on a quiet enough machine (or the retries are used up). */
async function sampleWithRetries(take: () => Promise<Sample>): Promise<Sample> {
  let best: Sample | null = null;
  for (let attempt = 1; attempt <= settings.retries + 1; attempt++) {
    await waitForQuiet(settings.noise, settings.quietWaitSeconds * 1000);
    const sample = await take();
    sample.attempts = attempt;
    if (!best || sample.error || sample.interference < best.interference) best = sample;
    if (sample.error || sample.interference <= settings.noise) break;
  }
  return best as Sample;
}

function record(sample: Sample): void {
  samples.push(sample);
  console.log(describe(sample));
}

/** Rotates the order every repeat: no variant always runs first, or always right after the same neighbour. */
function rotated<T>(items: T[], repeat: number): T[] {
  const shift = repeat % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

for (const scenario of scenarios) {
  if (scenario.kind === "ws" && wsUnavailable) {
    console.log(`ws: not available (${wsUnavailable})`);
    continue;
  }
  if (scenario.kind === "rss" || scenario.kind === "startup") {
    // RSS and start-up need a fresh process per sample (idle memory first; the spawn is what is timed).
    const take = scenario.kind === "rss" ? measureRss : measureStartup;
    for (let repeat = 0; repeat < settings.repeat; repeat++) {
      for (const variant of rotated(scenario.variants, repeat)) {
        record(await sampleWithRetries(() => take(scenario, variant, settings, repeat)));
      }
    }
    continue;
  }
  // Every variant of the scenario is started (and checked) first, then measured in alternation.
  const servers = new Map<string, RunningServer>();
  try {
    for (const variant of scenario.variants) {
      const server = await launch(scenario, variant, settings);
      if ("error" in server) {
        record({
          scenario: scenario.name,
          variant: variant.id,
          repeat: 0,
          attempts: 1,
          value: null,
          p99Ms: null,
          errors: 0,
          interference: 0,
          error: server.error,
        });
      } else servers.set(variant.id, server);
    }
    for (let repeat = 0; repeat < settings.repeat; repeat++) {
      for (const variant of rotated(scenario.variants, repeat)) {
        const server = servers.get(variant.id);
        if (server)
          record(await sampleWithRetries(() => measure(scenario, variant, server, settings, repeat)));
      }
    }
  } finally {
    for (const server of servers.values()) await server.stop();
  }
}

function describe(s: Sample): string {
  const head = `[${s.repeat + 1}/${settings.repeat}] ${s.scenario.padEnd(10)} ${s.variant.padEnd(15)}`;
  if (s.error) return `${head} FAILED: ${s.error}`;
  const noise = `${Math.round(s.interference * 100)}% elsewhere${s.attempts > 1 ? `, attempt ${s.attempts}` : ""}`;
  if (s.rssIdleKb !== undefined) {
    return `${head} RSS idle ${(s.rssIdleKb / 1024).toFixed(1)} MB, mid ${((s.rssMidKb ?? 0) / 1024).toFixed(1)} MB, end ${((s.rssEndKb ?? 0) / 1024).toFixed(1)} MB (${noise})`;
  }
  if (s.startupCpuMs !== undefined) {
    const runs = (s.startupRunsMs ?? []).map((ms) => ms.toFixed(1)).join(", ");
    return `${head} first answer ${s.value?.toFixed(1)} ms (runs ${runs}), server CPU ${s.startupCpuMs.toFixed(1)} ms (${noise})`;
  }
  const health = s.healthP99Ms !== undefined ? `, /health p99 ${s.healthP99Ms?.toFixed(1)} ms` : "";
  const use =
    s.serverCores !== undefined
      ? `, server ${s.serverCores.toFixed(2)} cores, ${s.serverUsPerOp?.toFixed(2)} µs/op`
      : "";
  return `${head} ${Math.round(s.value ?? 0)} ${s.scenario === "ws" ? "msg/s" : "req/s"}${health}${use}${s.errors ? `, ${s.errors} errors` : ""} (${noise})`;
}

const results = scenarios.map((scenario) =>
  summarise(
    scenario,
    samples.filter((s) => s.scenario === scenario.name),
    scenario.kind === "ws" ? wsUnavailable : undefined,
  ),
);
const date = new Date().toISOString();
const report: Report = {
  date,
  machine,
  settings,
  command: ["bun run bench", ...process.argv.slice(2)].join(" "),
  results,
  targets: checkTargets(results),
  engines: rankEngines(results),
  samples,
};
const md = markdown(report);
console.log(`\n${md}`);

mkdirSync(outDir, { recursive: true });
const stamp = date.replace(/[:.]/g, "-");
writeFileSync(join(outDir, `${stamp}.json`), `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(join(outDir, `${stamp}.md`), md);
writeFileSync(join(outDir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(join(outDir, "latest.md"), md);
console.log(`results: ${join(outDir, `${stamp}.md`)} (and latest.md, latest.json)`);
process.exit(0);
