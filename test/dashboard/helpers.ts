/** Starts an example with `webfw … --dev` (the real command line) and finds its URL. */
import { freePort, REPO, testEnv } from "../cli/helpers.ts";

export interface DevServer {
  url: string;
  /** Everything the server wrote to stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

export async function startDev(example: string, args: string[] = []): Promise<DevServer> {
  // A fixed port: after a --dev restart the app listens where the page expects it.
  const port = freePort();
  const proc = Bun.spawn(
    [process.execPath, "cli/webfw.ts", example, "--dev", "--port", String(port), ...args],
    {
      cwd: REPO,
      env: testEnv(),
      stdout: "ignore",
      stderr: "pipe",
    },
  );
  let text = "";
  const decoder = new TextDecoder();
  const reader = proc.stderr.getReader();
  let url: string | null = null;
  const deadline = Date.now() + 20_000;
  // Keeps reading after the startup line, so that the log stays readable for the test.
  const pump = (async () => {
    for (;;) {
      const step = await reader.read();
      if (step.done) return;
      text += decoder.decode(step.value, { stream: true });
    }
  })();
  while (url === null) {
    url = /listening on (http:\/\/[\d.]+:\d+)/.exec(text)?.[1] ?? null;
    if (url !== null) break;
    if (Date.now() > deadline || proc.exitCode !== null) {
      proc.kill("SIGKILL");
      throw new Error(`the dev server did not start:\n${text}`);
    }
    await Bun.sleep(25);
  }
  return {
    url,
    output: () => text,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      await pump.catch(() => {});
    },
  };
}
