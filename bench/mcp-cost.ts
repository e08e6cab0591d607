/**
 * What MCP costs an app: `bun bench/mcp-cost.ts` (optionally `RUNS=15`).
 *
 * Three apps, started alternately as real processes pinned with taskset to
 * one core (when taskset exists): raw Bun.serve, a webfw app with one route
 * and no MCP, and the same app with one MCP tool (so the official SDK is
 * loaded). For each: time from spawn to the first answered request, idle RSS
 * after start, and, for the MCP app, RSS after one MCP session (initialize +
 * tools/call). Prints medians and the spread (min–max) as a Markdown table.
 * The no-MCP row is the figure "an app without MCP costs nothing": the SDK is
 * imported only by src/mcp/engine.ts, which only an app with registrations loads.
 * `BEFORE=<path of a checkout>` adds the no-MCP app on that checkout (e.g. the
 * commit before the SDK engine: `git worktree add /tmp/before 4c67f49` and a
 * `node_modules` symlink), to compare with "before".
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCP_HEADERS, openMcpSession, portOf } from "./lib/child-app.ts";

const RUNS = Number(process.env.RUNS ?? "9");
const ROOT = join(import.meta.dir, "..");
const dir = mkdtempSync(join(tmpdir(), "webfw-mcp-cost-"));

const noMcp = (root: string) => `
import { Webfw } from "${root}/src/index.ts";
const app = new Webfw(import.meta.path, { openapi: false });
app.get("/", () => "ok");
const server = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false });
console.log("port " + server.port);`;

const apps: Record<string, string> = {
  "raw Bun.serve": `
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
console.log("port " + server.port);`,
  "webfw, no MCP": noMcp(ROOT),
  ...(process.env.BEFORE ? { "webfw, no MCP, before": noMcp(process.env.BEFORE) } : {}),
  "webfw + one MCP tool": `
import { Webfw } from "${ROOT}/src/index.ts";
const app = new Webfw(import.meta.path, { openapi: false });
app.get("/", () => "ok");
app.mcp.tool(() => "pong", { name: "ping_tool", description: "answers pong" });
const server = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false });
console.log("port " + server.port);`,
};

function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? "0");
}

async function mcpSession(port: number): Promise<void> {
  const url = `http://127.0.0.1:${port}/mcp`;
  const session = await openMcpSession(url);
  const call = await fetch(url, {
    method: "POST",
    headers: { ...MCP_HEADERS, "mcp-session-id": session },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ping_tool" } }),
  });
  if (!(await call.text()).includes("pong")) throw new Error("the MCP call failed");
}

interface Sample {
  startMs: number;
  idleKiB: number;
  afterMcpKiB: number | null;
}

async function once(name: string, file: string): Promise<Sample> {
  const pin = Bun.which("taskset") ? ["taskset", "-c", "1"] : [];
  const started = performance.now();
  const proc = Bun.spawn([...pin, process.execPath, file], { stdout: "pipe", stderr: "inherit" });
  const port = await portOf(proc, name);
  await (await fetch(`http://127.0.0.1:${port}/`)).text();
  const startMs = performance.now() - started;
  await Bun.sleep(300); // let start-up garbage settle before reading RSS
  const idleKiB = rssKiB(proc.pid);
  let afterMcpKiB: number | null = null;
  if (name.includes("MCP tool")) {
    await mcpSession(port);
    await Bun.sleep(200);
    afterMcpKiB = rssKiB(proc.pid);
  }
  proc.kill();
  await proc.exited;
  return { startMs, idleKiB, afterMcpKiB };
}

function stats(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] as number;
  return `${median.toFixed(1)} (${(sorted[0] as number).toFixed(1)}–${(sorted.at(-1) as number).toFixed(1)})`;
}

const files = Object.fromEntries(
  Object.entries(apps).map(([name, source], index) => {
    const file = join(dir, `app-${index}.ts`);
    writeFileSync(file, source);
    return [name, file];
  }),
);
const samples: Record<string, Sample[]> = Object.fromEntries(Object.keys(apps).map((name) => [name, []]));
try {
  for (let run = 0; run < RUNS; run++) {
    // Alternate the apps within each run so drift on the shared machine hits all of them alike.
    for (const name of Object.keys(apps)) samples[name]?.push(await once(name, files[name] as string));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(`MCP cost, ${RUNS} runs each, median (min–max); Bun ${Bun.version}\n`);
console.log("| app | start to first answer, ms | idle RSS, MiB | RSS after one MCP session, MiB |");
console.log("|---|---|---|---|");
for (const [name, list] of Object.entries(samples)) {
  const after = list.flatMap((sample) => (sample.afterMcpKiB === null ? [] : [sample.afterMcpKiB / 1024]));
  console.log(
    `| ${name} | ${stats(list.map((s) => s.startMs))} | ${stats(list.map((s) => s.idleKiB / 1024))} | ${
      after.length > 0 ? stats(after) : "–"
    } |`,
  );
}
