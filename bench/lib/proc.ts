/** Starting a benchmark server pinned to given cores, waiting for it to listen, and always stopping it. */
import type { Subprocess } from "bun";

export interface RunningServer {
  pid: number;
  port: number;
  url: string;
  stop(): Promise<void>;
  /** What the server wrote to stderr (for error messages). */
  stderr(): string;
}

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 3_000;

/** Every server started and not yet stopped: killed on exit, whatever happens. */
const live = new Set<Subprocess>();
function killAll(): void {
  for (const proc of live) proc.kill("SIGKILL");
  live.clear();
}
process.on("exit", killAll);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

export async function startServer(
  file: string,
  cpus: string,
  env: Record<string, string>,
): Promise<RunningServer> {
  // taskset execs the command: the subprocess pid is the server's own pid (used to read its RSS).
  const proc = Bun.spawn(["taskset", "-c", cpus, process.execPath, file], {
    env: { ...process.env, ...env, NODE_ENV: "production" },
    stdout: "pipe",
    stderr: "pipe",
  });
  live.add(proc);
  let errText = "";
  void (async () => {
    const reader = proc.stderr.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      errText = (errText + decoder.decode(chunk.value)).slice(-4000);
    }
  })();

  const stop = async () => {
    if (!live.has(proc)) return;
    live.delete(proc);
    proc.kill("SIGTERM");
    const exited = await Promise.race([
      proc.exited.then(() => true),
      Bun.sleep(STOP_TIMEOUT_MS).then(() => false),
    ]);
    if (!exited) {
      proc.kill("SIGKILL");
      await proc.exited;
    }
  };

  try {
    const port = await readyPort(proc);
    return { pid: proc.pid, port, url: `http://127.0.0.1:${port}`, stop, stderr: () => errText };
  } catch (error) {
    await stop();
    const lines = errText.trim().split("\n");
    const last = lines.findLast((line) => /error/i.test(line)) ?? lines.at(-1) ?? "";
    throw new Error(`${file} did not start: ${(error as Error).message}${last ? ` (${last})` : ""}`);
  }
}

/**
 * The port of a server's `{"ready":true,"port":N}` line on stdout (bench/lib/ready.ts); stdout is
 * drained afterwards so that a chatty server never blocks on a full pipe.
 */
export async function readyPort(proc: { stdout: ReadableStream<Uint8Array> }): Promise<number> {
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const timeout = Bun.sleep(READY_TIMEOUT_MS).then(() => {
    throw new Error("timed out waiting for the ready line");
  });
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), timeout]);
      if (chunk.done) throw new Error("exited before it was ready");
      buffered += decoder.decode(chunk.value);
      for (const line of buffered.split("\n")) {
        if (!line.startsWith("{")) continue;
        const message = JSON.parse(line) as { ready?: boolean; port?: number };
        if (message.ready && typeof message.port === "number") {
          // Keep draining stdout so a chatty server never blocks on a full pipe.
          void (async () => {
            try {
              while (!(await reader.read()).done) {}
            } catch {}
          })();
          return message.port;
        }
      }
    }
  } catch (error) {
    reader.releaseLock();
    throw error;
  }
}
