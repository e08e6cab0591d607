/**
 * Issue 31, in every run mode (`bun app.ts`, `--workers`, `--processes`, `--fast`, `--dev`,
 * `webfw app.ts`, and a binary made by `webfw build`):
 * - one startup line `listening on <url>` with the real port, pid, processes and workers, once
 *   per app (not once per process), even when `--fast` lowers the log level to WARNING;
 * - `handle.stop()` lets the process exit at once (the drain and Worker-shutdown timers are cleared);
 * - inside a binary, `appDir(import.meta.dir)` is the executable's folder, and a folder the app
 *   created under its embedded root is reported at start.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { CLI, collect, freePort, runCli, tempDir, testEnv, tryGet, waitFor } from "../cli/helpers.ts";

const APP = join(import.meta.dir, "fixtures/run-app.ts");
const LINE = /msg="listening on ([^"]+)"[^\n]*/g;

let tmp: { path: string; remove: () => void };
let binary: string;
let buildOutput: { code: number; stdout: string; stderr: string };

beforeAll(async () => {
  tmp = tempDir("run-modes");
  binary = join(tmp.path, "run-app");
  buildOutput = await runCli(["build", APP, "--outfile", binary]);
  if (buildOutput.code !== 0) throw new Error(`build failed: ${buildOutput.stdout}\n${buildOutput.stderr}`);
}, 120_000);
afterAll(() => tmp.remove());

type Launch = (args: string[]) => string[];
const MODES: { name: string; command: Launch; processes: number; workers: number }[] = [
  { name: "bun app.ts", command: (a) => [process.execPath, APP, ...a], processes: 1, workers: 1 },
  {
    name: "--workers 2",
    command: (a) => [process.execPath, APP, "--workers", "2", ...a],
    processes: 1,
    workers: 2,
  },
  {
    name: "--processes 2",
    command: (a) => [process.execPath, APP, "--processes", "2", ...a],
    processes: 2,
    workers: 1,
  },
  { name: "--fast", command: (a) => [process.execPath, APP, "--fast", ...a], processes: -1, workers: 1 },
  { name: "--dev", command: (a) => [process.execPath, APP, "--dev", ...a], processes: 1, workers: 1 },
  { name: "webfw app.ts", command: (a) => [process.execPath, CLI, APP, ...a], processes: 1, workers: 1 },
  { name: "compiled binary", command: (a) => [binary, ...a], processes: 1, workers: 1 },
  {
    name: "compiled binary --processes 2 --workers 2",
    command: (a) => [binary, "--processes", "2", "--workers", "2", ...a],
    processes: 2,
    workers: 2,
  },
];

function launch(command: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(command, { cwd: tmp.path, env: testEnv(env), stdout: "pipe", stderr: "pipe" });
  return { proc, out: collect(proc.stdout), err: collect(proc.stderr) };
}

describe("the startup line", () => {
  for (const mode of MODES) {
    test(`${mode.name}: one line with the real URL, pid, processes and workers`, async () => {
      // Several processes share a port only when it is named; one process takes port 0.
      const port = mode.processes === 1 ? 0 : freePort();
      const { proc, err } = launch(mode.command([]), { RUN_APP_PORT: String(port) });
      try {
        const url = await waitFor(
          () => /msg="listening on ([^"]+)"/.exec(err.text())?.[1],
          15_000,
          "the line",
        );
        const answer = await tryGet(`${url}/`);
        expect(answer?.status).toBe(200);
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        if (port !== 0) expect(url).toBe(`http://127.0.0.1:${port}`);
        // Every process is up by now (the line waits for all); give a duplicate time to show.
        await Bun.sleep(mode.processes === 1 ? 300 : 1_000);
        const lines = [...err.text().matchAll(LINE)].map((m) => m[0]);
        expect(lines).toHaveLength(1);
        const line = lines[0] ?? "";
        expect(line).toContain(`url=${url}`);
        expect(line).toMatch(/ pid=\d+/);
        expect(line).toContain(` workers=${mode.workers}`);
        if (mode.processes > 0) expect(line).toContain(` processes=${mode.processes}`);
        else expect(line).toMatch(/ processes=\d+/);
        // The pid is the process to signal: the supervisor's with several processes, else the server's.
        const pid = Number(/ pid=(\d+)/.exec(line)?.[1]);
        if (mode.name !== "--dev" && mode.name !== "webfw app.ts") expect(pid).toBe(proc.pid);
      } catch (error) {
        throw new Error(`${error}\n--- stderr:\n${err.text()}`);
      } finally {
        proc.kill("SIGTERM");
        await proc.exited;
      }
    }, 40_000);
  }
});

describe("handle.stop()", () => {
  const STOP_MODES = MODES.filter((m) => ["bun app.ts", "--workers 2", "compiled binary"].includes(m.name));
  for (const mode of STOP_MODES) {
    test(`${mode.name}: the process exits as soon as stop() resolves`, async () => {
      const { proc, out, err } = launch(mode.command([]), { RUN_APP_STOP: "1" });
      const code = await proc.exited;
      const exitedAt = Date.now();
      await out.done;
      const stopped = /stopped from a worker (\d+)/.exec(out.text());
      expect(stopped, err.text()).not.toBeNull();
      expect(code).toBe(0);
      // Before the fix: 10 s (the drain sleep), 5 s more with Workers (their shutdown sleep).
      expect(exitedAt - Number(stopped?.[1])).toBeLessThan(2_000);
    }, 30_000);
  }
});

describe("a compiled binary's data", () => {
  test("webfw build of an app with nothing to embed reports no failure", () => {
    expect(buildOutput.stderr).not.toContain("could not list");
    expect(buildOutput.stderr).toBe("");
    expect(buildOutput.stdout).toContain(`webfw build: wrote ${binary}`);
  });

  test("appDir(import.meta.dir) is the executable's folder; writes under /$bunfs/root are reported", async () => {
    const name = `webfw-run-modes-${process.pid}`;
    const onDisk = join("//$bunfs/root", name);
    const hadRoot = existsSync("/$bunfs");
    const { proc, err } = launch([binary], { RUN_APP_DATA: name });
    try {
      const url = await waitFor(() => /msg="listening on ([^"]+)"/.exec(err.text())?.[1], 15_000, "the line");
      const dirs = (await (await fetch(`${url}/dirs`)).json()) as Record<string, string>;
      expect(dirs).toEqual({ metaDir: "/$bunfs/root", appDir: tmp.path });
      // The folder the app made is on the real disk, and the start says so.
      expect(existsSync(onDisk)).toBe(true);
      const warning = await waitFor(
        () =>
          err
            .text()
            .split("\n")
            .find((l) => l.includes("level=WARNING") && l.includes("embedded root")),
        5_000,
        "the warning",
      );
      expect(warning).toContain(`/$bunfs/root/${name}`);
      expect(warning).toContain("appDir(import.meta.dir)");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
      rmSync(onDisk, { recursive: true, force: true });
      // The folders the binary made on the real disk for it, unless they were there before.
      if (!hadRoot) rmSync("/$bunfs", { recursive: true, force: true });
    }
  }, 30_000);

  test("without such writes, no warning", async () => {
    // Another binary on this machine may have left something there: then the warning must name it.
    const already = existsSync("/$bunfs/root") ? readdirSync("/$bunfs/root") : [];
    const { proc, err } = launch([binary]);
    try {
      await waitFor(() => err.text().includes("listening on"), 15_000, "the line");
      await Bun.sleep(200);
      if (already.length === 0) expect(err.text()).not.toContain("embedded root");
      else for (const name of already) expect(err.text()).toContain(`/$bunfs/root/${name}`);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }, 30_000);
});
