/**
 * `--processes N`: a supervisor with N children on one port (reusePort), crash
 * restarts, SIGTERM forwarding with in-flight requests drained, and giving up.
 * The children are the mini app (test/cli/fixtures), a Bun.serve that crashes on /crash.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync } from "node:fs";
import { respawnArgv } from "../../src/process/respawn.ts";
import { superviseProcesses } from "../../src/process/supervisor.ts";
import { alive, collect, freePort, MINI_APP, REPO, tempDir, testEnv, tryGet, waitFor } from "./helpers.ts";

let tmp: { path: string; remove: () => void };
beforeAll(() => {
  tmp = tempDir("supervisor");
});
afterAll(() => tmp.remove());

function eventsDir(name: string): string {
  const dir = `${tmp.path}/${name}`;
  mkdirSync(dir, { recursive: true });
  return dir;
}

const pidsOf = (dir: string, kind: "start" | "term"): number[] =>
  readdirSync(dir)
    .filter((f) => f.startsWith(`${kind}-`))
    .map((f) => Number(f.slice(kind.length + 1)));

function startSupervisor(args: string[], env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, MINI_APP, ...args], {
    cwd: REPO,
    env: testEnv(env),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { proc, err: collect(proc.stderr), out: collect(proc.stdout) };
}

/** A supervisor of two children on a fresh port, reporting to a fresh events folder. */
function startTwo(name: string) {
  const port = freePort();
  const events = eventsDir(name);
  return {
    port,
    events,
    ...startSupervisor(["--processes", "2", "--port", String(port)], { MINI_EVENTS_DIR: events }),
  };
}

function twoChildren(events: string) {
  return waitFor(
    () => pidsOf(events, "start").length === 2 && pidsOf(events, "start"),
    10_000,
    "two children",
  );
}

describe("--processes 2", () => {
  test("two children share the port; a crashed one is restarted within 2 s", async () => {
    const { port, events, proc, err } = startTwo("restart");
    try {
      const first = await twoChildren(events);
      expect(first.every(alive)).toBe(true);

      const info = (await (await fetch(`http://127.0.0.1:${port}/info`)).json()) as Record<string, unknown>;
      expect(info.role).toBe("supervised-child");
      expect(info.reusePort).toBe(true);
      expect(first).toContain(info.pid as number);

      const crash = await fetch(`http://127.0.0.1:${port}/crash`);
      expect(await crash.text()).toBe("crashing");
      const crashedAt = performance.now();
      const third = await waitFor(
        () => {
          const now = pidsOf(events, "start");
          return now.length === 3 ? now.find((p) => !first.includes(p)) : undefined;
        },
        2_000,
        "the crashed child to be replaced",
      );
      expect(performance.now() - crashedAt).toBeLessThan(2_000);
      expect(alive(third)).toBe(true);
      expect(first.filter(alive)).toHaveLength(1);
      expect(err.text()).toContain('msg="server process exited; restarting"');

      // The port keeps answering.
      const res = await waitFor(() => tryGet(`http://127.0.0.1:${port}/`), 3_000, "an answer");
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("hello from mini");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  });

  test("SIGTERM is forwarded; in-flight requests finish; the supervisor exits 0", async () => {
    const { port, events, proc, err } = startTwo("sigterm");
    try {
      const children = await twoChildren(events);
      const slow = fetch(`http://127.0.0.1:${port}/slow?ms=700`);
      await Bun.sleep(150);
      proc.kill("SIGTERM");
      // Delivered twice (process group + a forwarding parent): still one graceful stop.
      proc.kill("SIGTERM");

      const res = await slow;
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("slow done");
      expect(await proc.exited).toBe(0);
      expect(err.text()).not.toContain("second signal");
      // Every child got the signal (it wrote term-<pid>) and is gone.
      expect(pidsOf(events, "term").sort()).toEqual([...children].sort());
      expect(children.some(alive)).toBe(false);
      expect(await tryGet(`http://127.0.0.1:${port}/`)).toBeUndefined();
    } finally {
      proc.kill("SIGKILL");
    }
  });

  test("a second signal a moment later kills the children at once (exit 1)", async () => {
    const { port, events, proc, err } = startTwo("force");
    try {
      const children = await twoChildren(events);
      const slow = fetch(`http://127.0.0.1:${port}/slow?ms=20000`).then(
        (r) => r.status,
        () => "failed",
      );
      await Bun.sleep(150);
      proc.kill("SIGINT");
      await Bun.sleep(1_200);
      proc.kill("SIGINT");
      expect(await proc.exited).toBe(1);
      expect(await slow).toBe("failed");
      expect(err.text()).toContain("second signal: killing server processes");
      expect(children.some(alive)).toBe(false);
    } finally {
      proc.kill("SIGKILL");
    }
  });

  test("children that cannot start make the supervisor give up with exit 1", async () => {
    const port = freePort();
    const { proc, err } = startSupervisor(["--processes", "2", "--port", String(port)], { MINI_FAIL: "1" });
    try {
      expect(await proc.exited).toBe(1);
      expect(err.text()).toContain("failed to start 5 times in a row; giving up");
    } finally {
      proc.kill("SIGKILL");
    }
  });
});

describe("superviseProcesses (in process)", () => {
  test("restarts with back-off and stops on demand", async () => {
    const dir = eventsDir("inproc");
    // A child that records its start, then exits 1 after 50 ms.
    const script = `require("node:fs").appendFileSync(${JSON.stringify(`${dir}/starts`)}, "x"); setTimeout(() => process.exit(1), 50);`;
    const lines: string[] = [];
    const { createLogger } = await import("../../src/log/logger.ts");
    const code = await superviseProcesses({
      count: 1,
      argv: ["-e", script],
      env: testEnv(),
      restartDelayMs: 20,
      maxFailedStarts: 3,
      logger: createLogger("DEBUG", (l) => lines.push(l)),
    });
    expect(code).toBe(1);
    expect((await Bun.file(`${dir}/starts`).text()).length).toBe(3);
    const delays = lines
      .filter((l) => l.includes("restarting"))
      .map((l) => Number(/restart_in_ms=(\d+)/.exec(l)?.[1]));
    expect(delays).toEqual([20, 40]);
  });

  test("rejects a bad count", () => {
    expect(() => superviseProcesses({ count: 0, argv: [], env: {} })).toThrow(RangeError);
  });
});

describe("respawnArgv", () => {
  test("re-runs the script with the same flags under bun", () => {
    expect(respawnArgv(["/usr/bin/bun", "/app/app.ts", "--processes", "2"], ["--smol"])).toEqual([
      "--smol",
      "/app/app.ts",
      "--processes",
      "2",
    ]);
  });

  test("in a compiled binary only the flags follow the executable", () => {
    expect(respawnArgv(["bun", "/$bunfs/root/app", "--port", "1"], [])).toEqual(["--port", "1"]);
  });
});
