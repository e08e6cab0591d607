/** Medians, ratios, the docs/performance.md target checks, and the Markdown/JSON result files. */
import type { Sample, Settings } from "./measure.ts";
import type { Scenario } from "./scenarios.ts";
import { ENGINES } from "./scenarios.ts";
import type { Machine } from "./system.ts";

export function median(values: number[]): number | null {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export interface Row {
  variant: string;
  label: string;
  samples: number;
  median: number | null;
  min: number | null;
  max: number | null;
  ratio: number | null;
  /** Median, min and max over the repeats of (this sample / the baseline's sample of the same repeat). */
  paired: { median: number; min: number; max: number } | null;
  p99Ms: number | null;
  /** Median server CPU time per request/message (µs) and cores used. */
  usPerOp: number | null;
  cores: number | null;
  healthP99Ms?: number | null;
  rssIdleMb?: number | null;
  rssMidMb?: number | null;
  rssEndMb?: number | null;
  /** Start-up: median server CPU milliseconds to the first answer. */
  startupCpuMs?: number | null;
  maxInterference: number;
  errors: number;
  problem?: string;
}

export interface ScenarioResult {
  name: string;
  title: string;
  kind: Scenario["kind"];
  baseline: string;
  rows: Row[];
  unavailable?: string;
}

export interface TargetCheck {
  scenario: string;
  target: string;
  engine: string;
  measured: string;
  pass: boolean | null;
}

const mb = (kb: number | null) => (kb === null ? null : kb / 1024);

export function summarise(scenario: Scenario, samples: Sample[], unavailable?: string): ScenarioResult {
  const rows: Row[] = scenario.variants.map((variant) => {
    const mine = samples.filter((s) => s.variant === variant.id && !s.error);
    const failed = samples.find((s) => s.variant === variant.id && s.error);
    const values = mine.map((s) => s.value).filter((v): v is number => v !== null && Number.isFinite(v));
    return {
      variant: variant.id,
      label: variant.label,
      samples: mine.length,
      median: median(values),
      min: values.length ? Math.min(...values) : null,
      max: values.length ? Math.max(...values) : null,
      ratio: null,
      paired: null,
      p99Ms: median(mine.map((s) => s.p99Ms ?? Number.NaN)),
      usPerOp: median(mine.map((s) => s.serverUsPerOp ?? Number.NaN)),
      cores: median(mine.map((s) => s.serverCores ?? Number.NaN)),
      healthP99Ms: median(mine.map((s) => s.healthP99Ms ?? Number.NaN)),
      rssIdleMb: mb(median(mine.map((s) => s.rssIdleKb ?? Number.NaN))),
      rssMidMb: mb(median(mine.map((s) => s.rssMidKb ?? Number.NaN))),
      rssEndMb: mb(median(mine.map((s) => s.rssEndKb ?? Number.NaN))),
      startupCpuMs: median(mine.map((s) => s.startupCpuMs ?? Number.NaN)),
      maxInterference: Math.max(0, ...mine.map((s) => s.interference)),
      errors: mine.reduce((sum, s) => sum + s.errors, 0),
      problem: failed?.error,
    };
  });
  const base = rows.find((r) => r.variant === scenario.baseline);
  for (const row of rows) {
    if (scenario.kind === "rss") {
      row.ratio = row.rssIdleMb && base?.rssIdleMb ? row.rssIdleMb / base.rssIdleMb : null;
    } else if (scenario.kind === "startup") {
      // Milliseconds: lower is better, the ratio reads "× raw" as the RSS one does.
      row.ratio = row.median !== null && base?.median ? row.median / base.median : null;
      row.paired = pairedRatio(samples, row.variant, scenario.baseline);
    } else {
      row.ratio = row.median !== null && base?.median ? row.median / base.median : null;
      row.paired = pairedRatio(samples, row.variant, scenario.baseline);
    }
  }
  return {
    name: scenario.name,
    title: scenario.title,
    kind: scenario.kind,
    baseline: scenario.baseline,
    rows,
    unavailable,
  };
}

/**
 * Ratios of samples taken in the same repeat (seconds apart, in rotated order): the machine's
 * slow drifts cancel out, so their spread shows how far the ratio of medians can be trusted.
 */
function pairedRatio(samples: Sample[], variant: string, baseline: string): Row["paired"] {
  const ratios: number[] = [];
  for (const sample of samples) {
    if (sample.variant !== variant || sample.error || !sample.value) continue;
    const base = samples.find(
      (s) => s.variant === baseline && s.repeat === sample.repeat && !s.error && s.value,
    );
    if (base?.value) ratios.push(sample.value / base.value);
  }
  const mid = median(ratios);
  return mid === null ? null : { median: mid, min: Math.min(...ratios), max: Math.max(...ratios) };
}

function value(results: ScenarioResult[], scenario: string, variant: string): Row | undefined {
  return results.find((r) => r.name === scenario)?.rows.find((row) => row.variant === variant);
}

const fmt = (n: number | null | undefined, digits = 2) =>
  n === null || n === undefined ? "–" : n.toFixed(digits);

/** The targets of docs/performance.md, checked for every webfw router engine. */
export function checkTargets(results: ScenarioResult[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const ratio = (scenario: string, a: string, b: string) => {
    const x = value(results, scenario, a)?.median;
    const y = value(results, scenario, b)?.median;
    return x != null && y ? x / y : null;
  };
  const add = (
    scenario: string,
    target: string,
    engine: string,
    measured: number | null,
    pass: (v: number) => boolean,
  ) =>
    checks.push({
      scenario,
      target,
      engine,
      measured: fmt(measured),
      pass: measured === null ? null : pass(measured),
    });
  for (const engine of ENGINES) {
    const w = `webfw-${engine}`;
    add("hello", "≥ 0.97 × raw", engine, ratio("hello", w, "raw"), (v) => v >= 0.97);
    add("hello", "≥ Elysia (ratio ≥ 1)", engine, ratio("hello", w, "elysia"), (v) => v >= 1);
    add("const", "≥ 0.98 × Bun static Response", engine, ratio("const", w, "raw"), (v) => v >= 0.98);
    add("params", "≥ Elysia (ratio ≥ 1)", engine, ratio("params", w, "elysia"), (v) => v >= 1);
    add("params", "≥ 1.1 × Hono", engine, ratio("params", w, "hono"), (v) => v >= 1.1);
    add("json", "≥ Elysia (ratio ≥ 1)", engine, ratio("json", w, "elysia"), (v) => v >= 1);
    const sameWork = ratio("json", w, "elysia-same-work");
    add("json", "≥ Elysia doing the same work (ratio ≥ 1)", engine, sameWork, (v) => v >= 1);
    add("middleware", "≥ 0.9 × raw", engine, ratio("middleware", w, "raw"), (v) => v >= 0.9);
    add("middleware", "≥ 0.95 × Elysia", engine, ratio("middleware", w, "elysia"), (v) => v >= 0.95);
    const rssIdle = value(results, "rss", w)?.ratio ?? null;
    add("rss", "idle ≤ 1.2 × raw", engine, rssIdle, (v) => v <= 1.2);
    const row = value(results, "rss", w);
    const growth = row?.rssEndMb && row.rssMidMb ? row.rssEndMb / row.rssMidMb : null;
    add("rss", "flat: RSS after N ≤ 1.1 × after N/2", engine, growth, (v) => v <= 1.1);
  }
  add(
    "cpu",
    "workers: 2 ≥ 1.7 × inline",
    "bun",
    ratio("cpu", "webfw-workers2", "webfw-inline"),
    (v) => v >= 1.7,
  );
  add(
    "cpu",
    "/health p99 < 10 ms (workers: 2)",
    "bun",
    value(results, "cpu", "webfw-workers2")?.healthP99Ms ?? null,
    (v) => v < 10,
  );
  const webfw = "webfw-bun";
  add("startup", "first answer ≤ 1.3 × raw", "bun", ratio("startup", webfw, "raw"), (v) => v <= 1.3);
  add(
    "startup",
    "first answer ≤ Elysia (ratio ≤ 1)",
    "bun",
    ratio("startup", webfw, "elysia"),
    (v) => v <= 1,
  );
  add("stack", "≥ Hono (ratio ≥ 1)", "bun", ratio("stack", webfw, "hono"), (v) => v >= 1);
  add("stack", "≥ Elysia (ratio ≥ 1)", "bun", ratio("stack", webfw, "elysia"), (v) => v >= 1);
  add("ws", "≥ 0.9 × raw Bun WebSocket", "bun", ratio("ws", "webfw", "raw"), (v) => v >= 0.9);
  // Issue #18: the production features against webfw with nothing on (docs/performance.md), and, beside each,
  // against raw Bun.serve doing the same work by hand (bench/servers/raw.ts), which shows what Bun allows.
  const production: [string, string, string, number][] = [
    ["request ids ≥ 0.98 × nothing on", "webfw-ids", "webfw", 0.98],
    ["request ids vs raw Bun echoing an id (≥ 0.98)", "webfw-ids", "raw-ids", 0.98],
    ["memory limit ≥ 0.95 × nothing on", "webfw-limit", "webfw", 0.95],
    ["memory limit vs raw Bun counting (≥ 0.95)", "webfw-limit", "raw-limit", 0.95],
  ];
  for (const [target, variant, base, floor] of production) {
    add("prod", target, "bun", ratio("prod", variant, base), (v) => v >= floor);
  }
  return checks.filter((c) => results.some((r) => r.name === c.scenario));
}

export interface EngineSummary {
  engine: string;
  /** Geometric mean of the ratios vs raw over the request scenarios both ran. */
  geomean: number | null;
  scenarios: string[];
}

/** Which router engine is fastest: geometric mean of its ratios vs raw on the request scenarios. */
export function rankEngines(results: ScenarioResult[]): EngineSummary[] {
  const names = ["hello", "const", "params", "json", "middleware"];
  return ENGINES.map((engine) => {
    const ratios: number[] = [];
    const used: string[] = [];
    for (const name of names) {
      const ratio = value(results, name, `webfw-${engine}`)?.ratio;
      if (ratio) {
        ratios.push(ratio);
        used.push(name);
      }
    }
    const geomean = ratios.length
      ? Math.exp(ratios.reduce((sum, r) => sum + Math.log(r), 0) / ratios.length)
      : null;
    return { engine, geomean, scenarios: used };
  }).sort((a, b) => (b.geomean ?? 0) - (a.geomean ?? 0));
}

export interface Report {
  date: string;
  machine: Machine;
  settings: Settings;
  command: string;
  results: ScenarioResult[];
  targets: TargetCheck[];
  engines: EngineSummary[];
  samples: Sample[];
}

const int = (n: number | null | undefined) =>
  n === null || n === undefined ? "–" : Math.round(n).toLocaleString("en-US");

function pairedText(row: Row): string {
  const p = row.paired;
  return p ? `${fmt(p.median)} (${fmt(p.min)}–${fmt(p.max)})` : "–";
}

function tableFor(result: ScenarioResult, settings: Settings): string {
  const lines: string[] = [`### ${result.name}: ${result.title}`, ""];
  if (result.unavailable) return [...lines, `not available: ${result.unavailable}`, ""].join("\n");
  const note = (row: Row) => {
    const parts: string[] = [];
    if (row.problem) parts.push(`failed: ${row.problem}`);
    if (row.errors > 0) parts.push(`${row.errors} errors`);
    if (row.maxInterference > settings.noise)
      parts.push(`noisy (${Math.round(row.maxInterference * 100)}% CPU elsewhere)`);
    return parts.join("; ");
  };
  if (result.kind === "rss") {
    lines.push(
      `| variant | idle RSS (MB) | after ${int(settings.rssRequests / 2)} (MB) | after ${int(settings.rssRequests)} (MB) | idle ratio vs raw | loaded ratio vs raw | notes |`,
      "|---|--:|--:|--:|--:|--:|---|",
    );
    const base = result.rows.find((r) => r.variant === result.baseline);
    for (const row of result.rows) {
      const loaded = row.rssEndMb && base?.rssEndMb ? row.rssEndMb / base.rssEndMb : null;
      lines.push(
        `| ${row.label} | ${fmt(row.rssIdleMb, 1)} | ${fmt(row.rssMidMb, 1)} | ${fmt(row.rssEndMb, 1)} | ${fmt(row.ratio)} | ${fmt(loaded)} | ${note(row)} |`,
      );
    }
  } else if (result.kind === "startup") {
    lines.push(
      `| variant | first answer (ms, median) | min–max | ratio vs ${result.baseline} | paired ratio (min–max) | server CPU to first answer (ms) | notes |`,
      "|---|--:|--:|--:|--:|--:|---|",
    );
    for (const row of result.rows) {
      lines.push(
        `| ${row.label} | ${fmt(row.median, 1)} | ${fmt(row.min, 1)}–${fmt(row.max, 1)} | ${fmt(row.ratio)} | ${pairedText(row)} | ${fmt(row.startupCpuMs, 1)} | ${note(row)} |`,
      );
    }
  } else if (result.kind === "cpu") {
    lines.push(
      "| variant | /cpu req/s (median) | min–max | ratio vs webfw inline | paired ratio (min–max) | /health p99 (ms) | server cores | notes |",
      "|---|--:|--:|--:|--:|--:|--:|---|",
    );
    for (const row of result.rows) {
      lines.push(
        `| ${row.label} | ${int(row.median)} | ${int(row.min)}–${int(row.max)} | ${fmt(row.ratio)} | ${pairedText(row)} | ${fmt(row.healthP99Ms, 1)} | ${fmt(row.cores, 2)} | ${note(row)} |`,
      );
    }
  } else {
    const unit = result.kind === "ws" ? "msg/s" : "req/s";
    lines.push(
      `| variant | ${unit} (median) | min–max | ratio vs ${result.baseline} | paired ratio (min–max) | p99 (ms) | server µs/${result.kind === "ws" ? "msg" : "req"} | server cores | notes |`,
      "|---|--:|--:|--:|--:|--:|--:|--:|---|",
    );
    for (const row of result.rows) {
      lines.push(
        `| ${row.label} | ${int(row.median)} | ${int(row.min)}–${int(row.max)} | ${fmt(row.ratio)} | ${pairedText(row)} | ${fmt(row.p99Ms)} | ${fmt(row.usPerOp, 2)} | ${fmt(row.cores, 2)} | ${note(row)} |`,
      );
    }
  }
  lines.push("");
  return lines.join("\n");
}

/** One row of the summary table: a scenario, its target, and which peers it is compared with. */
interface SummaryRow {
  scenario: string;
  label: string;
  target: string;
  /** Lower is better (milliseconds, megabytes): the ratios read "× raw". */
  lowerIsBetter?: boolean;
  /** The variant in the Elysia column, when not plain Elysia (a peer doing the same work). */
  elysia?: string;
  pass: (ratios: { raw: number | null; elysia: number | null; hono: number | null }) => boolean | null;
}

const both = (a: boolean | null, b: boolean | null) => (a === null || b === null ? null : a && b);
const atLeast = (v: number | null, floor: number) => (v === null ? null : v >= floor);
const atMost = (v: number | null, ceiling: number) => (v === null ? null : v <= ceiling);

/** The rows of docs/performance.md's target table (issue 32), in its order. */
const SUMMARY: SummaryRow[] = [
  {
    scenario: "hello",
    label: "`GET /` string",
    target: "≥ 0.97 × raw, ≥ Elysia",
    pass: (r) => both(atLeast(r.raw, 0.97), atLeast(r.elysia, 1)),
  },
  {
    scenario: "const",
    label: "const route",
    target: "≥ 0.98 × Bun static",
    pass: (r) => atLeast(r.raw, 0.98),
  },
  {
    scenario: "params",
    label: "`/id/:id?name=` + header",
    target: "≥ Elysia, ≥ 1.1 × Hono",
    pass: (r) => both(atLeast(r.elysia, 1), atLeast(r.hono, 1.1)),
  },
  { scenario: "json", label: "`POST /json` echo", target: "≥ Elysia", pass: (r) => atLeast(r.elysia, 1) },
  {
    scenario: "json",
    label: "`POST /json` echo, Elysia doing webfw's work (cross-site check, body budget, read deadline)",
    target: "≥ Elysia doing the same work",
    elysia: "elysia-same-work",
    pass: (r) => atLeast(r.elysia, 1),
  },
  {
    scenario: "middleware",
    label: "one before + one after middleware",
    target: "≥ 0.9 × raw, ≥ 0.95 × Elysia",
    pass: (r) => both(atLeast(r.raw, 0.9), atLeast(r.elysia, 0.95)),
  },
  {
    scenario: "stack",
    label: "production stack (ids, memory limit, metrics)",
    target: "≥ Hono, ≥ Elysia",
    pass: (r) => both(atLeast(r.hono, 1), atLeast(r.elysia, 1)),
  },
  {
    scenario: "startup",
    label: "start to first answer",
    target: "≤ 1.3 × raw, ≤ Elysia",
    lowerIsBetter: true,
    pass: (r) => both(atMost(r.raw, 1.3), atMost(r.elysia, 1)),
  },
  {
    scenario: "rss",
    label: "idle RSS, one-route app",
    target: "≤ 1.2 × raw",
    lowerIsBetter: true,
    pass: (r) => atMost(r.raw, 1.2),
  },
];

/**
 * The summary the README quotes (issue 32's table): webfw (router `bun`) against raw Bun, Elysia
 * and Hono, as ratios of medians, with the server's CPU per request beside them (µs; for start-up
 * the CPU milliseconds to the first answer), and the target.
 */
export function summaryTable(results: ScenarioResult[]): string {
  const lines = [
    "| scenario | webfw × raw | webfw × Elysia | webfw × Hono | server CPU (webfw / raw / Elysia / Hono) | target | met |",
    "|---|--:|--:|--:|---|---|---|",
  ];
  for (const row of SUMMARY) {
    const result = results.find((r) => r.name === row.scenario);
    if (!result) continue;
    const of = (id: string) => result.rows.find((r) => r.variant === id);
    const webfw = of("webfw-bun");
    const figure = (r: Row | undefined) =>
      result.kind === "rss" ? (r?.rssIdleMb ?? null) : (r?.median ?? null);
    const ratioTo = (id: string) => {
      const mine = figure(webfw);
      const theirs = figure(of(id));
      return mine !== null && theirs ? mine / theirs : null;
    };
    const elysia = row.elysia ?? "elysia";
    // A row against a peer doing the same work shows only that peer (the plain row is above it).
    if (row.elysia !== undefined && of(elysia) === undefined) continue;
    const ratios = {
      raw: row.elysia === undefined ? ratioTo("raw") : null,
      elysia: ratioTo(elysia),
      hono: row.elysia === undefined ? ratioTo("hono") : null,
    };
    const cpu = (r: Row | undefined) =>
      result.kind === "startup"
        ? fmt(r?.startupCpuMs, 1)
        : result.kind === "rss"
          ? fmt(r?.rssIdleMb, 1)
          : fmt(r?.usPerOp, 1);
    const unit = result.kind === "startup" ? " ms" : result.kind === "rss" ? " MB idle" : " µs/req";
    const pass = row.pass(ratios);
    lines.push(
      `| ${row.label} | ${fmt(ratios.raw)} | ${fmt(ratios.elysia)} | ${fmt(ratios.hono)} | ${["webfw-bun", "raw", elysia, "hono"].map((id) => cpu(of(id))).join(" / ")}${unit} | ${row.target}${row.lowerIsBetter ? " (lower is better)" : ""} | ${pass === null ? "–" : pass ? "yes" : "**no**"} |`,
    );
  }
  return lines.join("\n");
}

export function markdown(report: Report): string {
  const { machine, settings } = report;
  const out = [
    `# webfw benchmark — ${report.date}`,
    "",
    `Machine: ${machine.cpuModel}, ${machine.nproc} vCPU (nproc), ${machine.memTotalMb} MB, Linux ${machine.kernel}; Bun ${machine.bun}, wrk ${machine.wrk}.`,
    `Servers pinned to core 0 (the cpu and fast scenarios: cores 0,1), load generators to core 1; 127.0.0.1 only.`,
    `Settings: ${settings.repeat} repeats × ${settings.duration} s (warm-up ${settings.warmup} s), wrk -t1 -c${settings.connections}; ` +
      `cpu: -c${settings.cpuConnections}, ${int(settings.cpuIterations)} iterations/request; ` +
      `ws: ${settings.wsConnections} connections × ${settings.wsWindow} in flight; rss: ${int(settings.rssRequests)} requests; startup: ${settings.startupRuns ?? "–"} spawns per sample; webfw from ${settings.webfwFrom === "dist" ? "dist/ (the built package)" : "src/"}.`,
    `Command: \`${report.command}\``,
    "",
    'Values are medians over the repeats; "ratio" divides medians (the targets use it). "paired ratio" is the',
    "median of per-repeat ratios (each sample over the baseline's sample of the same repeat), with its range:",
    'the range shows how much one sample moves on this shared VM. "noisy" marks rows where another process',
    `took more than ${Math.round(settings.noise * 100)}% of the CPU during a sample even after ${settings.retries} retries.`,
    "",
    "## Summary (the README's table)",
    "",
    summaryTable(report.results),
    "",
    ...report.results.map((r) => tableFor(r, settings)),
    "## Router engines",
    "",
    "Geometric mean of each engine's ratio vs raw Bun.serve over the request scenarios (higher is faster):",
    "",
    "| engine | geometric mean | scenarios |",
    "|---|--:|---|",
    ...report.engines.map((e) => `| ${e.engine} | ${fmt(e.geomean, 3)} | ${e.scenarios.join(", ") || "–"} |`),
    "",
    "## Targets (docs/performance.md)",
    "",
    "| scenario | target | engine | measured | met |",
    "|---|---|---|--:|---|",
    ...report.targets.map(
      (t) =>
        `| ${t.scenario} | ${t.target} | ${t.engine} | ${t.measured} | ${t.pass === null ? "–" : t.pass ? "yes" : "**no**"} |`,
    ),
    "",
  ];
  return out.join("\n");
}
