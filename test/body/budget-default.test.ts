/**
 * The default of `maxBodyBuffer`: 1/16 of the memory the process may use (its container's limit
 * where there is one), clamped to 64 MiB – 1 GiB; what a new app gets when it does not set it.
 */
import { afterEach, expect, test } from "bun:test";
import { defaultBodyBuffer } from "../../src/body/budget.ts";
import { Webfw } from "../../src/index.ts";

const MiB = 1024 * 1024;
const original = process.constrainedMemory;

afterEach(() => {
  process.constrainedMemory = original;
});

test("1/16 of the constrained memory, clamped to 64 MiB – 1 GiB", () => {
  for (const [memory, expected] of [
    [4096 * MiB, 256 * MiB], // a 4 GiB container
    [512 * MiB, 64 * MiB], // small: the floor
    [64 * 1024 * MiB, 1024 * MiB], // large: the ceiling
  ] as const) {
    process.constrainedMemory = () => memory;
    expect(defaultBodyBuffer()).toBe(expected);
  }
});

test("no constrained memory reported: the machine's memory (node:os, loaded only then)", async () => {
  process.constrainedMemory = () => 0;
  const { totalmem } = await import("node:os");
  expect(defaultBodyBuffer()).toBe(Math.min(1024 * MiB, Math.max(64 * MiB, Math.floor(totalmem() / 16))));
});

test("an app without maxBodyBuffer gets the default", () => {
  process.constrainedMemory = () => 2048 * MiB;
  const app = new Webfw(import.meta.path);
  expect((app as unknown as { config: { maxBodyBuffer: number } }).config.maxBodyBuffer).toBe(128 * MiB);
});
