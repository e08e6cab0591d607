/**
 * The start-up client's servers see what bench/run.ts set in its environment after it started
 * (`BENCH_WEBFW=dist`: webfw from the built package). Bun 1.4.5's `Bun.spawn` without `env` passes
 * the environment a process started with, so until bench/lib/measure.ts `runClient` passed
 * `process.env` on by hand, the start-up row ran webfw from src/ while its header said dist/
 * (docs/performance.md, "The start-up row measured the sources").
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { freePort, runClient } from "../../bench/lib/measure.ts";

const FIXTURE = join(import.meta.dir, "fixtures/env-echo.ts");
const before = process.env.BENCH_WEBFW;
afterEach(() => {
  if (before === undefined) delete process.env.BENCH_WEBFW;
  else process.env.BENCH_WEBFW = before;
});

/** One start of the fixture by the bench's start-up client, which fails unless the answer is `expected`. */
function firstAnswer(expected: string): Promise<{ result: unknown }> {
  return runClient(
    [
      "first-answer.ts",
      `--file=${FIXTURE}`,
      `--port=${freePort()}`,
      "--path=/",
      `--expect=${expected}`,
      "--server-cpus=0",
      "--runs=1",
    ],
    { duration: 1, warmup: 0 },
  );
}

test("a variable the runner sets after it started reaches the start-up client's server", async () => {
  process.env.BENCH_WEBFW = `set-late-${process.pid}`;
  const { result } = await firstAnswer(`set-late-${process.pid}`);
  expect((result as { ms: number[] }).ms).toHaveLength(1);
});

test("the client fails when the server answers something else (the check can fail)", async () => {
  process.env.BENCH_WEBFW = "dist";
  await expect(firstAnswer("src")).rejects.toThrow(/wrong answer: 200 dist/);
});
