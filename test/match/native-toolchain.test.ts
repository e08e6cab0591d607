/**
 * The `ffi` engine's router library and `loadNative()` share one toolchain (issue #21): one
 * cache directory rule ($WEBFW_NATIVE_CACHE), one compiler rule, one embedded-file rule.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runCommand } from "../helpers/run-command.ts";
import { testWithProgram } from "../helpers/system-program.ts";

const root = resolve(import.meta.dir, "../..");

/** Loads the router in a fresh process (the loader caches per process) and reports where it came from. */
async function loadIn(env: Record<string, string>, loader: "dlopen" | "tinycc") {
  const script = `
    const { FfiMatcher } = await import(${JSON.stringify(join(root, "src/match/ffi.ts"))});
    const m = new FfiMatcher({ loader: ${JSON.stringify(loader)} });
    m.add("/users/:id");
    console.log(JSON.stringify({ loader: m.loader, match: m.match("/users/7") }));
  `;
  const { code, stdout, stderr } = await runCommand([process.execPath, "-e", script], {
    env: { ...process.env, ...env },
  });
  if (code !== 0) throw new Error(`child failed (${code}): ${stderr}`);
  return JSON.parse(stdout.trim()) as {
    loader: string;
    match: { pattern: string; params: Record<string, string> };
  };
}

describe("one native toolchain for the ffi engine and loadNative", () => {
  testWithProgram(
    "cc",
    "apt-get install gcc",
    "the router library is built into $WEBFW_NATIVE_CACHE, like loadNative's libraries",
    async () => {
      const cache = mkdtempSync(join(tmpdir(), "webfw-router-cache-"));
      try {
        const result = await loadIn({ WEBFW_NATIVE_CACHE: cache }, "dlopen");
        expect(result.loader).toBe("dlopen");
        expect(result.match).toMatchObject({ pattern: "/users/:id", params: { id: "7" } });
        const files = readdirSync(cache);
        expect(files.some((name) => /^router-[0-9a-f]{16}\.(so|dylib|dll)$/.test(name))).toBe(true);
        // The old variable of the router's former cache is not read any more.
        const other = mkdtempSync(join(tmpdir(), "webfw-old-cache-"));
        await loadIn({ WEBFW_NATIVE_CACHE: cache, WEBFW_CACHE_DIR: other }, "dlopen");
        expect(readdirSync(other)).toEqual([]);
        rmSync(other, { recursive: true, force: true });
      } finally {
        rmSync(cache, { recursive: true, force: true });
      }
    },
    60_000,
  );

  test("TinyCC compiles the router without writing a library", async () => {
    const cache = mkdtempSync(join(tmpdir(), "webfw-router-tcc-"));
    try {
      const result = await loadIn({ WEBFW_NATIVE_CACHE: cache }, "tinycc");
      expect(result.loader).toBe("tinycc");
      expect(result.match.params).toEqual({ id: "7" });
      expect(readdirSync(cache).filter((name) => /\.(so|dylib|dll)$/.test(name))).toEqual([]);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
