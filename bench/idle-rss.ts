/**
 * Idle RSS of a hello server, webfw against raw `Bun.serve` (issue #21), in a few seconds:
 *
 *   bun bench/idle-rss.ts                 # 5 rounds, alternating, medians and the ratio
 *   bun bench/idle-rss.ts --rounds 9 --sleep 1000
 *   bun bench/idle-rss.ts --modules       # also: which source modules the webfw server loads
 *   bun bench/idle-rss.ts --list          # … and each file
 *   bun bench/idle-rss.ts --from src      # webfw from its sources (default: dist/, the built package,
 *                                         # rebuilt first by scripts/build.ts: what users run)
 *   bun bench/idle-rss.ts --detail        # also: anonymous / file-backed / private MB and the threads
 *
 * Each round starts the `rss` scenario's server of each variant (bench/servers/raw.ts and webfw.ts,
 * port 0), waits for its ready line and one answer to `GET /`, sleeps, reads VmRSS from
 * /proc/PID/status and stops it. `--modules` runs the webfw server once more with
 * bench/lib/module-trace.ts preloaded (a plugin that records each module it loads: strace misses
 * some of Bun's reads) and counts them by folder (`src/<folder>`, `node_modules/<package>`).
 * Builtins (`node:zlib`, …) are not files and do not appear there; `--builtins` prints which
 * `node:`/`bun:` specifiers the loaded modules of src/ import statically.
 *
 * `--detail` splits each reading (docs/performance.md, "Issue 32, fourth pass: idle memory"):
 * `RssAnon` (the heaps, stacks, JIT code) and `RssFile` (pages of the `bun` executable that the
 * process has run or read, shared with every other `bun` process) from /proc/PID/status, the
 * private part (`Private_Clean` + `Private_Dirty` of /proc/PID/smaps_rollup: what this process alone
 * costs the machine) and the names of its threads.
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { buildBundle } from "../scripts/build.ts";
import { rssKb } from "./lib/system.ts";

const { values: opts } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    rounds: { type: "string", default: "5" },
    sleep: { type: "string", default: "300" },
    modules: { type: "boolean", default: false },
    detail: { type: "boolean", default: false },
    builtins: { type: "boolean", default: false },
    list: { type: "boolean", default: false },
    variants: { type: "string", default: "raw,webfw" },
    from: { type: "string", default: "dist" },
  },
});
if (opts.from !== "dist" && opts.from !== "src") throw new Error("--from takes dist or src");

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
if (opts.from === "dist") await buildBundle(`${root}/dist`);
const serverFile = (variant: string) => `${root}/bench/servers/${variant}.ts`;

async function startOne(
  variant: string,
  bunFlags: string[] = [],
): Promise<{ pid: number; port: number; stop: () => Promise<void> }> {
  const proc = Bun.spawn([process.execPath, ...bunFlags, serverFile(variant)], {
    env: { ...process.env, BENCH_SCENARIO: "rss", BENCH_PORT: "0", BENCH_WEBFW: opts.from },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = proc.stdout.getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${variant}: exited before it was ready`);
    text += new TextDecoder().decode(value);
    const line = text.split("\n").find((l) => l.includes('"ready"'));
    if (line) {
      reader.releaseLock();
      const port = (JSON.parse(line) as { port: number }).port;
      return {
        port,
        pid: proc.pid,
        stop: async () => {
          proc.kill("SIGTERM");
          await proc.exited;
        },
      };
    }
  }
}

async function idleRss(variant: string, sleepMs: number): Promise<number> {
  const server = await startOne(variant);
  try {
    const response = await fetch(`http://127.0.0.1:${server.port}/`);
    if (response.status !== 200) throw new Error(`${variant}: GET / answered ${response.status}`);
    await response.text();
    await Bun.sleep(sleepMs);
    const rss = rssKb(server.pid) ?? Number.NaN;
    if (opts.detail) details.get(variant)?.push(readDetail(server.pid));
    return rss;
  } finally {
    await server.stop();
  }
}

interface Detail {
  anonKb: number;
  fileKb: number;
  privateKb: number;
  threads: string;
}
const details = new Map<string, Detail[]>();

/** The split of one reading (see the header): /proc/PID/status, smaps_rollup and the threads' names. */
function readDetail(pid: number): Detail {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const field = (text: string, name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? "NaN");
  const threads = readdirSync(`/proc/${pid}/task`)
    .map((task) => readFileSync(`/proc/${pid}/task/${task}/comm`, "utf8").trim())
    .sort()
    .join(",");
  return {
    anonKb: field(status, "RssAnon"),
    fileKb: field(status, "RssFile"),
    privateKb: field(rollup, "Private_Clean") + field(rollup, "Private_Dirty"),
    threads,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const mb = (kb: number) => (kb / 1024).toFixed(1);

const variants = opts.variants.split(",");
const rounds = Number(opts.rounds);
const sleepMs = Number(opts.sleep);
const samples = new Map<string, number[]>(variants.map((v) => [v, []]));
for (const variant of variants) details.set(variant, []);
for (let i = 0; i < rounds; i++) {
  // Alternate the order so neither variant always runs first.
  const order = i % 2 ? [...variants].reverse() : variants;
  for (const variant of order) samples.get(variant)?.push(await idleRss(variant, sleepMs));
}
const base = median(samples.get(variants[0] as string) ?? []);
for (const [variant, kbs] of samples) {
  const m = median(kbs);
  console.log(
    `${variant.padEnd(8)} idle RSS median ${mb(m)} MB, min ${mb(Math.min(...kbs))} (${kbs.map(mb).join(", ")})  ratio ${(m / base).toFixed(2)}`,
  );
}

if (opts.detail) {
  for (const [variant, list] of details) {
    const m = (pick: (d: Detail) => number) => mb(median(list.map(pick)));
    console.log(
      `${variant.padEnd(8)} anonymous ${m((d) => d.anonKb)} MB, file-backed ${m((d) => d.fileKb)} MB, private ${m((d) => d.privateKb)} MB; threads: ${list[0]?.threads ?? ""}`,
    );
  }
}

if (opts.modules || opts.builtins || opts.list) await listModules();

async function listModules(): Promise<void> {
  const trace = `/tmp/webfw-idle-rss-${process.pid}.modules`;
  process.env.WEBFW_MODULE_TRACE = trace;
  const server = await startOne("webfw", ["--preload", `${root}/bench/lib/module-trace.ts`]);
  await (await fetch(`http://127.0.0.1:${server.port}/`)).text();
  await Bun.sleep(200);
  await server.stop();
  delete process.env.WEBFW_MODULE_TRACE;
  const files = new Set((await Bun.file(trace).text()).split("\n").filter(Boolean));
  await Bun.file(trace).delete();
  const byFolder = new Map<string, { count: number; bytes: number }>();
  for (const file of files) {
    const rel = file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file;
    const parts = rel.split("/");
    let folder: string;
    const nm = parts.lastIndexOf("node_modules");
    if (nm >= 0) {
      const pkg = parts[nm + 1] ?? "";
      folder = `node_modules/${pkg.startsWith("@") ? `${pkg}/${parts[nm + 2]}` : pkg}`;
    } else if (parts[0] === "src" || parts[0] === "bench" || parts[0] === "cli" || parts[0] === "dist") {
      folder = parts.length > 2 ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
    } else folder = parts.slice(0, -1).join("/");
    const entry = byFolder.get(folder) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += Bun.file(file).size;
    byFolder.set(folder, entry);
  }
  const sorted = [...byFolder].sort((a, b) => b[1].bytes - a[1].bytes);
  const total = sorted.reduce((n, [, e]) => n + e.count, 0);
  const bytes = sorted.reduce((n, [, e]) => n + e.bytes, 0);
  console.log(`\nwebfw hello server: ${total} source files opened, ${(bytes / 1024).toFixed(0)} KB`);
  for (const [folder, e] of sorted)
    console.log(
      `  ${folder.padEnd(44)} ${String(e.count).padStart(4)} files ${(e.bytes / 1024).toFixed(1).padStart(7)} KB`,
    );
  if (opts.list) for (const file of [...files].sort()) console.log(`    ${file}`);
  if (opts.builtins) {
    const builtins = new Map<string, string[]>();
    for (const file of files) {
      if (!file.startsWith(`${root}/src/`) && !file.startsWith(`${root}/cli/`)) continue;
      const source = await Bun.file(file).text();
      for (const m of source.matchAll(/^import\s+(?!type\b)[^;]*?from\s+"((?:node|bun):[^"]+)"/gm)) {
        const list = builtins.get(m[1] as string) ?? [];
        list.push(file.slice(root.length + 1));
        builtins.set(m[1] as string, list);
      }
    }
    console.log("\nbuiltins imported statically by the loaded files:");
    for (const [name, users] of [...builtins].sort()) console.log(`  ${name.padEnd(22)} ${users.join(", ")}`);
  }
}
