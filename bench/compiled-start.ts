/**
 * Start to first answer and idle memory of a one-route app as a compiled executable (`webfw build`,
 * with its default bytecode and with `--no-bytecode`), beside raw `Bun.serve` compiled the same two
 * ways and both run by `bun file.ts` (docs/performance.md, "Issue 32, seventh pass: the compiled
 * executable"). Each round starts every variant once, in alternating order, and records the
 * wall-clock ms from the spawn to the first 200 of `GET /`, the CPU ms the process's threads had
 * used by then (/proc/PID/task/TID/schedstat) and the RSS 300 ms later.
 *
 *   bun bench/compiled-start.ts                 # 9 rounds; builds dist/ first
 *   bun bench/compiled-start.ts --rounds 15 --no-build
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { medianOf, type StartSample, startSample } from "./lib/start-sample.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { rounds: { type: "string", default: "9" }, "no-build": { type: "boolean", default: false } },
});
const ROOT = join(import.meta.dir, "..");
const WORK = join(ROOT, "tmp", "compiled-start");

const RAW_APP = `const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("Hello, World!") });
console.log(JSON.stringify({ ready: true, port: server.port }));
`;
// The package as users install it (dist/); inside the tree so that its dependencies resolve.
const WEBFW_APP = `import { Webfw } from "../../dist/src/index.js";
const app = new Webfw(import.meta.path);
app.get("/", () => "Hello, World!");
if (import.meta.main) {
  const handle = await app.start({ host: "127.0.0.1", port: 0, handleSignals: false });
  console.log(JSON.stringify({ ready: true, port: handle.port }));
}
`;

function run(command: string[]): void {
  const done = Bun.spawnSync(command, { cwd: WORK, stdout: "pipe", stderr: "pipe" });
  if (done.exitCode !== 0) throw new Error(`${command.join(" ")}: ${done.stderr.toString()}`);
}

rmSync(WORK, { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });
await Bun.write(join(WORK, "raw.ts"), RAW_APP);
await Bun.write(join(WORK, "webfw.ts"), WEBFW_APP);
if (!values["no-build"]) run([process.execPath, join(ROOT, "scripts/build.ts"), "--no-types"]);
const bun = process.execPath;
const cli = join(ROOT, "dist/cli/webfw.js");
run([bun, "build", "--compile", "raw.ts", "--outfile", "raw-compiled"]);
run([
  bun,
  "build",
  "--compile",
  "--bytecode",
  "--format",
  "esm",
  "raw.ts",
  "--outfile",
  "raw-compiled-bytecode",
]);
run([bun, cli, "build", "webfw.ts", "--no-bytecode", "-o", "webfw-compiled"]);
run([bun, cli, "build", "webfw.ts", "-o", "webfw-compiled-bytecode"]);

/** Each variant and the raw one it is compared with (the same way of running). */
const VARIANTS: { name: string; command: string[]; raw: string }[] = [
  { name: "raw, bun raw.ts", command: [bun, "raw.ts"], raw: "raw, bun raw.ts" },
  { name: "webfw, bun webfw.ts", command: [bun, "webfw.ts"], raw: "raw, bun raw.ts" },
  { name: "raw, compiled", command: ["./raw-compiled"], raw: "raw, compiled" },
  { name: "webfw, compiled --no-bytecode", command: ["./webfw-compiled"], raw: "raw, compiled" },
  { name: "raw, compiled + bytecode", command: ["./raw-compiled-bytecode"], raw: "raw, compiled + bytecode" },
  {
    name: "webfw, compiled (bytecode)",
    command: ["./webfw-compiled-bytecode"],
    raw: "raw, compiled + bytecode",
  },
];

const samples = new Map(VARIANTS.map((v) => [v.name, [] as StartSample[]]));
for (let round = 0; round < Number(values.rounds); round++) {
  for (const variant of round % 2 ? [...VARIANTS].reverse() : VARIANTS)
    samples.get(variant.name)?.push(await startSample(variant.command, { cwd: WORK }));
}
rmSync(WORK, { recursive: true, force: true });

const of = (name: string, key: keyof StartSample) => medianOf((samples.get(name) ?? []).map((s) => s[key]));
const range = (name: string, key: keyof StartSample) => {
  const xs = (samples.get(name) ?? []).map((s) => s[key]);
  return `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
};
console.log(`${Number(values.rounds)} rounds, medians (min–max); × raw: against raw Bun run the same way`);
console.log("| variant | server CPU to first answer, ms | × raw | wall ms | idle RSS, MB | × raw |");
console.log("|---|--:|--:|--:|--:|--:|");
for (const { name, raw } of VARIANTS) {
  console.log(
    `| ${name} | ${of(name, "cpu").toFixed(1)} (${range(name, "cpu")}) | ${(of(name, "cpu") / of(raw, "cpu")).toFixed(2)} | ${of(name, "ms").toFixed(1)} | ${of(name, "rssMb").toFixed(1)} | ${(of(name, "rssMb") / of(raw, "rssMb")).toFixed(2)} |`,
  );
}
