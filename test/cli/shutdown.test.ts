/** onShutdownSignal (graceful stop for server processes) and prepareStart's decisions. */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { prepareStart } from "../../src/launch/prepare-start.ts";
import { logger } from "../../src/log/logger.ts";
import { alive, collect, testEnv, waitFor } from "./helpers.ts";

const CHILD = join(import.meta.dir, "fixtures/shutdown-child.ts");

function spawnChild(env: Record<string, string | undefined>) {
  const proc = Bun.spawn([process.execPath, CHILD], { env: testEnv(env), stdout: "pipe", stderr: "pipe" });
  return { proc, out: collect(proc.stdout) };
}

describe("onShutdownSignal", () => {
  test("a server process stops once and exits 0; a duplicate signal does not cut the drain", async () => {
    const graceful = spawnChild({});
    await waitFor(() => graceful.out.text().includes("ready"), 5000, "ready");
    graceful.proc.kill("SIGTERM");
    expect(await graceful.proc.exited).toBe(0);
    expect(graceful.out.text()).toContain("stop 1\nstopped\n");

    // Ctrl-C under `webfw app.ts` arrives twice at once: from the terminal and forwarded.
    const doubled = spawnChild({});
    await waitFor(() => doubled.out.text().includes("ready"), 5000, "ready");
    doubled.proc.kill("SIGINT");
    doubled.proc.kill("SIGINT");
    expect(await doubled.proc.exited).toBe(0);
    expect(doubled.out.text()).toContain("stop 1\nstopped\n");
  });

  test("a second Ctrl-C a moment later forces exit 130", async () => {
    const forced = spawnChild({ STOP_MS: "5000" });
    await waitFor(() => forced.out.text().includes("ready"), 5000, "ready");
    forced.proc.kill("SIGINT");
    await waitFor(() => forced.out.text().includes("stop 1"), 5000, "stop");
    await Bun.sleep(1100);
    forced.proc.kill("SIGINT");
    expect(await forced.proc.exited).toBe(130);
    expect(forced.out.text()).not.toContain("stopped");
  });

  test("a supervised child ignores the repeated signal (terminal + supervisor) and drains", async () => {
    const child = spawnChild({ WEBFW_CHILD: "1" });
    await waitFor(() => child.out.text().includes("ready"), 5000, "ready");
    child.proc.kill("SIGINT");
    child.proc.kill("SIGINT");
    child.proc.kill("SIGTERM");
    expect(await child.proc.exited).toBe(0);
    expect(child.out.text()).toContain("stop 1\nstopped\n");
    expect(child.out.text()).not.toContain("stop 2");
  });

  test("a supervised child shuts down when its supervisor is killed", async () => {
    const parent = spawnChild({ SPAWN_GRANDCHILD: "1" });
    const pid = Number(
      (await waitFor(() => /child (\d+)/.exec(parent.out.text())?.[1], 5000, "the child's pid")) ??
        Number.NaN,
    );
    await waitFor(() => parent.out.text().includes("ready"), 5000, "ready");
    parent.proc.kill("SIGKILL");
    await parent.proc.exited;
    await waitFor(() => !alive(pid), 5000, "the orphan to exit");
  });
});

describe("prepareStart", () => {
  const level = logger.level;
  afterEach(() => logger.setLevel(level));

  test("a plain server: flags parsed, no reusePort, log level applied", async () => {
    const decision = await prepareStart({ argv: ["--workers", "2", "--log-level", "error"], env: {} });
    if (decision.action !== "serve") throw new Error("expected serve");
    expect(decision.plan.role).toBe("server");
    expect(decision.plan.reusePort).toBe(false);
    expect(decision.plan.flags.workers).toBe(2);
    expect(logger.level).toBe("ERROR");
  });

  test("a supervised child listens with reusePort; only slot 0 opens the browser", async () => {
    const first = await prepareStart({
      argv: ["--open-browser"],
      env: { WEBFW_CHILD: "1", WEBFW_CHILD_INDEX: "0" },
    });
    const second = await prepareStart({
      argv: ["--open-browser"],
      env: { WEBFW_CHILD: "1", WEBFW_CHILD_INDEX: "1" },
    });
    if (first.action !== "serve" || second.action !== "serve") throw new Error("expected serve");
    expect(first.plan).toMatchObject({ role: "supervised-child", reusePort: true, openBrowser: true });
    expect(second.plan).toMatchObject({ role: "supervised-child", reusePort: true, openBrowser: false });
  });

  test("a dev child opens the browser on the first start only", async () => {
    const first = await prepareStart({ argv: ["--open-browser", "--dev"], env: { WEBFW_DEV_CHILD: "1" } });
    const later = await prepareStart({
      argv: ["--open-browser", "--dev"],
      env: { WEBFW_DEV_CHILD: "1", WEBFW_DEV_RESTARTS: "3" },
    });
    if (first.action !== "serve" || later.action !== "serve") throw new Error("expected serve");
    expect(first.plan).toMatchObject({ role: "dev-child", reusePort: false, openBrowser: true });
    expect(later.plan.openBrowser).toBe(false);
  });

  test("a bad flag means exit 2", async () => {
    const write = process.stderr.write;
    let written = "";
    process.stderr.write = ((chunk: string) => {
      written += chunk;
      return true;
    }) as typeof process.stderr.write;
    try {
      expect(await prepareStart({ argv: ["--port", "x"], env: {} })).toEqual({ action: "exit", code: 2 });
    } finally {
      process.stderr.write = write;
    }
    expect(written).toStartWith('webfw: --port must be an integer from 0 to 65535, got "x"');
  });
});
