/** Runs test/faults/fixtures/fault-app.ts as a real program and talks to it. */
import { join } from "node:path";
import { collect, freePort, testEnv, tryGet, waitFor } from "../cli/helpers.ts";
import { rawGet } from "../security/raw-client.ts";

export const FAULT_APP = join(import.meta.dir, "fixtures/fault-app.ts");

export interface Program {
  port: number;
  url: string;
  proc: ReturnType<typeof Bun.spawn>;
  stdout: () => string;
  stderr: () => string;
  /** Sends a signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/**
 * Starts the fault app with flags; `memoryLimitKb` runs it under `ulimit -v`
 * (Bun ignores Worker `resourceLimits`, so an address-space limit is how a
 * heap is bounded). Resolves once `listening` processes printed "listening".
 */
export function launch(
  flags: string[],
  options: { memoryLimitKb?: number; listening?: number; env?: Record<string, string> } = {},
): Promise<Program> {
  return launchProgram(FAULT_APP, flags, options);
}

/** Starts `script` (an app that prints `listening …` and has a /health route) on a free port. */
export async function launchProgram(
  script: string,
  flags: string[],
  options: {
    memoryLimitKb?: number;
    listening?: number;
    env?: Record<string, string>;
    healthPath?: string;
  } = {},
): Promise<Program> {
  const port = freePort();
  const args = [process.execPath, script, "--port", String(port), "--log-level", "ERROR", ...flags];
  const cmd = options.memoryLimitKb
    ? ["sh", "-c", `ulimit -v ${options.memoryLimitKb} && exec "$@"`, "sh", ...args]
    : args;
  const proc = Bun.spawn(cmd, { env: testEnv(options.env), stdout: "pipe", stderr: "pipe" });
  const out = collect(proc.stdout as ReadableStream<Uint8Array>);
  const err = collect(proc.stderr as ReadableStream<Uint8Array>);
  const url = `http://127.0.0.1:${port}`;
  const want = options.listening ?? 1;
  try {
    await waitFor(
      () => (out.text().match(/^listening /gm)?.length ?? 0) >= want,
      20_000,
      `${want} listening line(s)`,
    );
    const health = options.healthPath ?? "/health";
    await waitFor(() => tryGet(`${url}${health}`).then((r) => r?.ok), 10_000, "the app to answer");
  } catch (error) {
    proc.kill("SIGKILL");
    throw new Error(`${(error as Error).message}\nstdout: ${out.text()}\nstderr: ${err.text()}`);
  }
  return {
    port,
    url,
    proc,
    stdout: out.text,
    stderr: err.text,
    async stop(signal = "SIGTERM") {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
      const code = await proc.exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** The pid that answered on a fresh connection (so reusePort can pick any process), or null when it failed. */
export async function pidOf(port: number): Promise<number | null> {
  try {
    const reply = await rawGet(port, "/pid");
    return reply.status === 200 ? ((JSON.parse(reply.body) as { pid: number }).pid ?? null) : null;
  } catch {
    return null;
  }
}

export { waitFor };
