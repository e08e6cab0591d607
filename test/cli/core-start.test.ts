/**
 * The same command-line behaviour through the real `app.start()`. These tests
 * run once the core calls `prepareStart()` (src/launch/prepare-start.ts); until then
 * they are skipped, and the launcher is covered through test/cli/fixtures/mini-app.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { collect, freePort, REPO, run, runCli, tempDir, testEnv, tryGet, waitFor } from "./helpers.ts";

const CORE_APP = join(import.meta.dir, "fixtures/core-app.ts");

function coreSource(): string {
  try {
    return ["src/launch/server.ts", "src/app.ts", "src/launch/start-options.ts"]
      .map((f) => {
        try {
          return readFileSync(join(REPO, f), "utf8");
        } catch {
          return "";
        }
      })
      .join("\n");
  } catch {
    return "";
  }
}
const WIRED = coreSource().includes("prepareStart");
const POOL_FINDS_EMBEDDED_ENTRY = (() => {
  try {
    return readFileSync(join(REPO, "src/workers/pool.ts"), "utf8").includes("WEBFW_WORKER_ENTRY");
  } catch {
    return false;
  }
})();

let tmp: { path: string; remove: () => void };
beforeAll(() => {
  tmp = tempDir("core");
});
afterAll(() => tmp.remove());

const starts = (dir: string) => readdirSync(dir).filter((f) => f.startsWith("start-"));

describe.skipIf(!WIRED)("app.start() reads the flags", () => {
  test("--help, --version, and bad values exit 2", async () => {
    expect((await run(CORE_APP, ["--help"])).code).toBe(0);
    const bad = await run(CORE_APP, ["--port", "70000"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port must be an integer from 0 to 65535, got "70000"');
    const unknown = await run(CORE_APP, ["--bogus"]);
    expect(unknown.code).toBe(2);
  });

  test("--port and WEBFW_PORT; webfw app.ts runs it too", async () => {
    const port = freePort();
    const proc = Bun.spawn([process.execPath, "cli/webfw.ts", CORE_APP, "--port", String(port)], {
      cwd: REPO,
      env: testEnv({ WEBFW_PORT: "1" }),
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const res = await waitFor(() => tryGet(`http://127.0.0.1:${port}/`), 10_000, "the app");
      expect(await res.text()).toBe("core hello");
    } finally {
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    }
  });

  test("--processes 2: crash restart, then SIGTERM drains in-flight requests", async () => {
    const port = freePort();
    const events = join(tmp.path, "events");
    mkdirSync(events, { recursive: true });
    const proc = Bun.spawn([process.execPath, CORE_APP, "--processes", "2", "--port", String(port)], {
      cwd: REPO,
      env: testEnv({ CORE_EVENTS_DIR: events }),
      stdout: "pipe",
      stderr: "pipe",
    });
    const err = collect(proc.stderr);
    try {
      await waitFor(() => starts(events).length === 2, 10_000, "two server processes");
      await fetch(`http://127.0.0.1:${port}/crash`);
      await waitFor(() => starts(events).length === 3, 2_000, "the restarted process");
      const slow = fetch(`http://127.0.0.1:${port}/slow`);
      await Bun.sleep(150);
      proc.kill("SIGTERM");
      const res = await slow;
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("slow done");
      expect(await proc.exited).toBe(0);
    } catch (error) {
      throw new Error(`${error}\n${err.text()}`);
    } finally {
      proc.kill("SIGKILL");
    }
  });

  test("--workers 2 runs an offloaded handler on a worker", async () => {
    const port = freePort();
    const proc = Bun.spawn([process.execPath, CORE_APP, "--workers", "2", "--port", String(port)], {
      cwd: REPO,
      env: testEnv(),
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const res = await waitFor(() => tryGet(`http://127.0.0.1:${port}/thread`), 10_000, "the app");
      expect(await res.text()).toBe("worker");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  });
});

describe.skipIf(!WIRED || !POOL_FINDS_EMBEDDED_ENTRY)("webfw build of a real app", () => {
  test("the executable serves, with the worker pool", async () => {
    const binary = join(tmp.path, "core-app");
    const built = await runCli(["build", CORE_APP, "--outfile", binary]);
    expect(built.code).toBe(0);
    const port = freePort();
    const proc = Bun.spawn([binary, "--port", String(port), "--workers", "2"], {
      env: testEnv(),
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const res = await waitFor(() => tryGet(`http://127.0.0.1:${port}/`), 10_000, "the binary");
      expect(await res.text()).toBe("core hello");
      expect(await (await fetch(`http://127.0.0.1:${port}/thread`)).text()).toBe("worker");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }, 60_000);
});
