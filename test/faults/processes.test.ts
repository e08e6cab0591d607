/**
 * `--processes 2` with a real webfw app: a child that crashes is restarted
 * and the port serves from a new process within 2 s; the other child keeps
 * serving meanwhile. SIGTERM under load: see sigterm-drain.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Results } from "../security/helpers.ts";
import { rawGet } from "../security/raw-client.ts";
import { launch, type Program, pidOf, waitFor } from "./spawn.ts";

const results = new Results("faults-processes");
let program: Program;

beforeAll(async () => {
  program = await launch(["--processes", "2"], { listening: 2 });
}, 30_000);
afterAll(async () => {
  const code = await program?.stop("SIGTERM");
  expect(code).toBe(0);
  results.write();
});

/** Pids seen over `tries` fresh connections (reusePort spreads them over the children). */
async function pidsSeen(tries: number): Promise<Set<number>> {
  const seen = new Set<number>();
  for (let i = 0; i < tries; i++) {
    const pid = await pidOf(program.port);
    if (pid !== null) seen.add(pid);
  }
  return seen;
}

describe("--processes 2", () => {
  test("two processes answer on one port", async () => {
    const seen = await waitFor(
      async () => {
        const pids = await pidsSeen(40);
        return pids.size === 2 ? pids : undefined;
      },
      10_000,
      "both children to answer",
    );
    expect(seen.size).toBe(2);
    expect(seen.has(program.proc.pid)).toBe(false);
  }, 20_000);

  test("a crashed child is restarted and serves again within 2 s; the port never stops answering", async () => {
    const before = await waitFor(
      async () => {
        const pids = await pidsSeen(40);
        return pids.size === 2 ? pids : undefined;
      },
      10_000,
      "both children",
    );
    const crash = await rawGet(program.port, "/crash");
    expect(crash.status).toBe(200);
    const crashed = Number(crash.body.split(" ")[1]);
    expect(before.has(crashed)).toBe(true);
    const crashedAt = performance.now();

    let failures = 0;
    let served = 0;
    const replacement = await waitFor(
      async () => {
        const pid = await pidOf(program.port);
        if (pid === null) failures++;
        else served++;
        return pid !== null && !before.has(pid) ? pid : undefined;
      },
      5_000,
      "a new child to answer",
    );
    const elapsed = performance.now() - crashedAt;
    expect(elapsed).toBeLessThan(2_000);
    expect(replacement).not.toBe(crashed);
    // The surviving child answered while the other restarted.
    expect(served).toBeGreaterThan(0);
    results.add({
      group: "processes",
      input: "a child process exits (code 1) under --processes 2",
      outcome: `new child serving after ${Math.round(elapsed)} ms; ${failures} failed / ${served + 1} requests meanwhile`,
      survived: true,
    });
  }, 20_000);

  test("SIGKILL of a child (no chance to clean up) is restarted too", async () => {
    const pids = await waitFor(
      async () => {
        const seen = await pidsSeen(40);
        return seen.size === 2 ? seen : undefined;
      },
      10_000,
      "both children",
    );
    const victim = [...pids][0] as number;
    process.kill(victim, "SIGKILL");
    const killedAt = performance.now();
    await waitFor(
      async () => {
        const pid = await pidOf(program.port);
        return pid !== null && !pids.has(pid) ? pid : undefined;
      },
      5_000,
      "a new child after SIGKILL",
    );
    const elapsed = performance.now() - killedAt;
    expect(elapsed).toBeLessThan(2_000);
    expect((await rawGet(program.port, "/health")).body).toBe("ok");
    results.add({
      group: "processes",
      input: "a child process is SIGKILLed under --processes 2",
      outcome: `new child serving after ${Math.round(elapsed)} ms`,
      survived: true,
    });
  }, 20_000);
});
