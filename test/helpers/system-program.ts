/**
 * Suites that need a program of the system (Chromium, redis-server,
 * prometheus, h2load, …). On a machine without it (the README's "only Node
 * and npm"), the suite is skipped with a printed reason; under `CI=true`,
 * where `.ci/run` installs it, a missing program is a failing test instead,
 * so CI can never go green by skipping.
 */
import { describe, test } from "bun:test";
import { existsSync } from "node:fs";

/** The program's path, or null: an absolute path is checked as is, a name through PATH. */
export function findProgram(program: string): string | null {
  if (program.startsWith("/")) return existsSync(program) ? program : null;
  return Bun.which(program);
}

/** `describe` that runs only when `program` is there (see the file comment for what happens otherwise). */
export function describeWithProgram(program: string, install: string, name: string, body: () => void): void {
  if (findProgram(program) !== null) {
    describe(name, body);
    return;
  }
  const reason = `${program} is not installed (${install})`;
  if (process.env.CI === "true") {
    describe(name, () => {
      test(`needs ${program}`, () => {
        throw new Error(`${reason}; CI=true, so this fails instead of skipping`);
      });
    });
    return;
  }
  console.log(`skipped "${name}": ${reason}`);
  describe.skip(name, body);
}

/** One `test` that needs `program`; the same rule as `describeWithProgram`. */
export function testWithProgram(
  program: string,
  install: string,
  name: string,
  body: () => Promise<void> | void,
  timeoutMs?: number,
): void {
  if (findProgram(program) !== null) {
    test(name, body, timeoutMs);
    return;
  }
  const reason = `${program} is not installed (${install})`;
  if (process.env.CI === "true") {
    test(name, () => {
      throw new Error(`${reason}; CI=true, so this fails instead of skipping`);
    });
    return;
  }
  console.log(`skipped "${name}": ${reason}`);
  test.skip(name, body);
}
