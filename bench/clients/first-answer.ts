/**
 * Start to first answer (the `startup` scenario, docs/performance.md): spawns a server
 * (`taskset -c <server-cpus> bun <file>`, listening on `--port`), asks `GET <path>` over and over
 * until the first 200 with the expected body, and stops it; `--runs` times. Prints one JSON line:
 * { ms: [...], cpuMs: [...] } — wall-clock milliseconds from the spawn to that answer, and the CPU
 * time the server's threads had used by then (from /proc/PID/task/TID/schedstat, nanoseconds;
 * steadier than wall clock on a shared machine).
 *
 * The runner pins this client to the load core: polling never takes the server's core.
 */
import { parseArgs } from "node:util";
import { cpuMs as serverCpuMs } from "../lib/start-sample.ts";

const { values } = parseArgs({
  options: {
    file: { type: "string" },
    port: { type: "string" },
    path: { type: "string", default: "/" },
    expect: { type: "string" },
    "server-cpus": { type: "string", default: "0" },
    runs: { type: "string", default: "5" },
    env: { type: "string", default: "{}" },
  },
});
if (!values.file || !values.port) throw new Error("--file and --port are required");
const url = `http://127.0.0.1:${values.port}${values.path}`;
const env = {
  ...process.env,
  ...(JSON.parse(values.env) as Record<string, string>),
  BENCH_PORT: values.port,
};

async function once(): Promise<{ ms: number; cpuMs: number }> {
  const start = performance.now();
  const proc = Bun.spawn(
    ["taskset", "-c", values["server-cpus"] as string, process.execPath, values.file as string],
    {
      env,
      stdout: "ignore",
      stderr: "pipe",
    },
  );
  try {
    for (;;) {
      if (proc.exitCode !== null || performance.now() - start > 30_000) {
        const err = await new Response(proc.stderr).text();
        throw new Error(`no answer (exit ${proc.exitCode}): ${err.trim().split("\n").at(-1) ?? ""}`);
      }
      try {
        const response = await fetch(url, { keepalive: false });
        const body = await response.text();
        if (response.status === 200 && (values.expect === undefined || body === values.expect)) {
          const ms = performance.now() - start;
          return { ms, cpuMs: serverCpuMs(proc.pid) };
        }
        throw new Error(`wrong answer: ${response.status} ${body.slice(0, 80)}`);
      } catch (error) {
        if ((error as Error).message.startsWith("wrong answer")) throw error;
        // Not listening yet: ask again at once (this client has its own core).
      }
    }
  } finally {
    proc.kill("SIGKILL");
    await proc.exited;
  }
}

const ms: number[] = [];
const cpuMs: number[] = [];
for (let run = 0; run < Number(values.runs); run++) {
  const result = await once();
  ms.push(result.ms);
  cpuMs.push(result.cpuMs);
}
console.log(JSON.stringify({ ms, cpuMs }));
