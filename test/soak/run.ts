/**
 * Runs the security, fault and soak suites with result recording on, then
 * writes docs/security-results.md from what they observed.
 *
 *   bun test/soak/run.ts            full run (wrk 60 s, 1M requests, 10k WebSocket cycles, 500 slow clients)
 *   bun test/soak/run.ts --quick    the same suites with small numbers (about 1 min)
 *   options: --out FILE (default docs/security-results.md), --no-report
 *   env: WEBFW_SOAK_SECONDS, WEBFW_SOAK_CONNECTIONS, WEBFW_SOAK_REQUESTS,
 *        WEBFW_SOAK_WS_CYCLES, WEBFW_SOAK_SLOW_CLIENTS, WEBFW_PROPERTY_RUNS
 *
 * The last line is "N passed, N failed" (one count per step), like .ci/run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readResults, renderReport } from "./report.ts";

const REPO = resolve(import.meta.dir, "../..");
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const noReport = args.includes("--no-report");
const outIndex = args.indexOf("--out");
const out = outIndex === -1 ? join(REPO, "docs/security-results.md") : resolve(args[outIndex + 1] ?? "");
const unknown = args.filter(
  (a, i) => !["--quick", "--no-report", "--out"].includes(a) && args[i - 1] !== "--out",
);
if (unknown.length > 0) {
  process.stderr.write(`unknown argument(s): ${unknown.join(" ")}\n`);
  process.exit(2);
}

const QUICK: Record<string, string> = {
  WEBFW_SOAK_SECONDS: "10",
  WEBFW_SOAK_REQUESTS: "200000",
  WEBFW_SOAK_WS_CYCLES: "2000",
  WEBFW_SOAK_SLOW_CLIENTS: "200",
};
const resultsDir = mkdtempSync(join(tmpdir(), "webfw-security-results-"));
const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  WEBFW_RESULTS_DIR: resultsDir,
};
if (quick) for (const [key, value] of Object.entries(QUICK)) env[key] ??= value;

const steps: { name: string; cmd: string[] }[] = [
  { name: "security and fault suites", cmd: ["test", "test/security", "test/faults"] },
  { name: "load: wrk", cmd: ["test", "./test/soak/wrk.soak.ts"] },
  { name: "memory: RSS over many requests", cmd: ["test", "./test/soak/rss.soak.ts"] },
  { name: "WebSocket churn", cmd: ["test", "./test/soak/websocket.soak.ts"] },
  { name: "slow clients", cmd: ["test", "./test/soak/slowloris.soak.ts"] },
];

let passed = 0;
let failed = 0;
const failures: string[] = [];
try {
  for (const step of steps) {
    const started = performance.now();
    process.stdout.write(`::: ${step.name}\n`);
    const proc = Bun.spawn([process.execPath, ...step.cmd], {
      cwd: REPO,
      env,
      stdio: ["ignore", "inherit", "inherit"],
    });
    const code = await proc.exited;
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    process.stdout.write(
      `::: ${step.name}: ${code === 0 ? "ok" : `FAILED (exit ${code})`} in ${seconds} s\n`,
    );
    if (code === 0) passed++;
    else {
      failed++;
      failures.push(step.name);
    }
  }
  if (!noReport) {
    const files = readResults(resultsDir);
    const { cpus, release } = await import("node:os");
    const text = renderReport(files, {
      date: new Date().toISOString().slice(0, 10),
      bun: Bun.version,
      machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? "CPU"}, Linux ${release()}${quick ? " (--quick numbers)" : ""}`,
    });
    await Bun.write(out, text);
    process.stdout.write(`::: wrote ${out} (${files.length} suites)\n`);
  }
} finally {
  rmSync(resultsDir, { recursive: true, force: true });
}
if (failures.length > 0) process.stdout.write(`failed: ${failures.join(", ")}\n`);
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 ? 0 : 1);
