/**
 * The yardsticks load nothing of webfw at start. raw `Bun.serve`, Elysia and Hono
 * (bench/servers/raw.ts, elysia.ts, hono.ts) are what webfw's start-up and idle memory are divided
 * by: a static import that reaches src/ makes them load part of webfw in every scenario. It did,
 * from 2026-11-28 00:47 to 04:45 UTC (the json ladder), and made the idle-RSS and start-up rows read
 * better than they were (docs/performance.md, "Issue 32, seventh pass"). Modules a scenario needs from
 * webfw are imported dynamically, in that scenario only.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { staticallyLoaded } from "../helpers/static-imports.ts";

const ROOT = join(import.meta.dir, "../..");
const SRC = `${join(ROOT, "src")}/`;

describe("the bench's yardsticks load nothing of webfw at start", () => {
  for (const server of ["raw", "elysia", "hono"]) {
    test(`bench/servers/${server}.ts`, () => {
      const loaded = [...staticallyLoaded(join(ROOT, "bench/servers", `${server}.ts`))];
      expect(loaded.length).toBeGreaterThan(1);
      expect(loaded.filter((file) => file.startsWith(SRC))).toEqual([]);
    });
  }

  test("the walk sees a static import of webfw where there is one (the json ladder)", () => {
    const loaded = [...staticallyLoaded(join(ROOT, "bench/lib/json-ladder.ts"))];
    expect(loaded.some((file) => file.startsWith(SRC))).toBe(true);
  });
});
