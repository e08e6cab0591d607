import { suffix } from "bun:ffi";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  CreateNativeError,
  cacheDirFor,
  compileNativeFile,
  compileNativePath,
  createNativeFile,
  describeReport,
  loadNative,
  NativeCompileError,
  systemCCompiler,
} from "../../src/native/index.ts";
import { tempDir } from "../cli/helpers.ts";

const HAS_CC = systemCCompiler() !== undefined;
const HAS_RUSTC = Bun.which("rustc") !== null;
const ADD = { add: { args: ["i32", "i32"], returns: "i32" } } as const;

let dir: { path: string; remove: () => void };
const file = (name: string, content: string): string => {
  const path = join(dir.path, name);
  writeFileSync(path, content);
  return path;
};

beforeAll(() => {
  dir = tempDir("native");
});
afterAll(() => dir.remove());

describe("loadNative: C", () => {
  test.skipIf(!HAS_CC)("system cc: compiles into the cache and calls the function", () => {
    const src = file("add_cc.c", "int add(int a, int b) { return a + b; }\n");
    const { add } = loadNative(src, ADD, { compiler: "cc" });
    expect(add(2, 3)).toBe(5);
    expect(add(-7, 4)).toBe(-3);
    const libs = readdirSync(join(dir.path, ".webfw-cache")).filter((f) => f.startsWith("add_cc-"));
    expect(libs).toHaveLength(1);
    expect(libs[0]!.endsWith(`.${suffix}`)).toBe(true);
  });

  test("TinyCC (bun:ffi cc): no system compiler needed", () => {
    const src = file("add_tcc.c", "int add(int a, int b) { return a * 10 + b; }\n");
    const { add } = loadNative(src, ADD, { compiler: "tinycc" });
    expect(add(4, 2)).toBe(42);
    // TinyCC compiles in memory: nothing is written to the cache.
    const cache = join(dir.path, ".webfw-cache");
    expect(existsSync(cache) ? readdirSync(cache).filter((f) => f.startsWith("add_tcc")) : []).toEqual([]);
  });

  test("WEBFW_NATIVE_COMPILER=tinycc forces TinyCC", () => {
    const src = file("env_tcc.c", "int add(int a, int b) { return a - b; }\n");
    const compiled = compileNativeFile(src, { env: { ...process.env, WEBFW_NATIVE_COMPILER: "tinycc" } });
    expect(compiled.compiler).toBe("tinycc");
    expect(compiled.library).toBeUndefined();
  });

  test.skipIf(!HAS_CC)(
    "the cache is reused while the source is unchanged, and renewed when it changes",
    () => {
      const src = file("cached.c", "int add(int a, int b) { return a + b; }\n");
      const first = compileNativeFile(src, { compiler: "cc" });
      const second = compileNativeFile(src, { compiler: "cc" });
      expect(first.cached).toBe(false);
      expect(second.cached).toBe(true);
      expect(second.library).toBe(first.library!);
      writeFileSync(src, "int add(int a, int b) { return a + b + 100; }\n");
      const third = compileNativeFile(src, { compiler: "cc" });
      expect(third.cached).toBe(false);
      expect(third.library).not.toBe(first.library!);
      expect(loadNative(src, ADD, { compiler: "cc" }).add(1, 1)).toBe(102);
    },
  );

  test.skipIf(!HAS_CC)("a compile error names the file and carries the compiler's message", () => {
    const src = file("broken.c", "int add(int a, int b) { return a + ; }\n");
    let error: unknown;
    try {
      loadNative(src, ADD, { compiler: "cc" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NativeCompileError);
    expect((error as NativeCompileError).message).toContain("broken.c");
    expect((error as NativeCompileError).output).toContain("error");
  });

  test("a compile error under TinyCC too", () => {
    const src = file("broken_tcc.c", "int add(int a, int b) { return a + ; }\n");
    expect(() => loadNative(src, ADD, { compiler: "tinycc" })).toThrow(NativeCompileError);
  });

  test.skipIf(!HAS_CC)("a missing symbol is a clear error", () => {
    const src = file("other.c", "int other(void) { return 1; }\n");
    expect(() => loadNative(src, ADD, { compiler: "cc" })).toThrow(/cannot load .*other\.c/);
  });

  test("a missing file and a wrong extension are clear errors", () => {
    expect(() => loadNative(join(dir.path, "nope.c"), ADD)).toThrow(/cannot read native source/);
    expect(() => loadNative(file("x.txt", ""), ADD)).toThrow(/expected a \.c, \.rs, \.zig or shared library/);
  });

  test.skipIf(!HAS_CC)("a ready shared library is loaded as is", () => {
    const src = file("prebuilt.c", "int add(int a, int b) { return a + b + 1; }\n");
    const lib = compileNativeFile(src, { compiler: "cc" }).library!;
    expect(loadNative(lib, ADD).add(1, 1)).toBe(3);
  });

  test("relative paths resolve against the working directory", () => {
    const sub = join(dir.path, "rel");
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, "rel.c"), "int add(int a, int b) { return 7; }\n");
    const before = process.cwd();
    process.chdir(dir.path);
    try {
      expect(loadNative("rel/rel.c", ADD).add(0, 0)).toBe(7);
    } finally {
      process.chdir(before);
    }
  });

  test("WEBFW_NATIVE_CACHE moves the cache", () => {
    const elsewhere = join(dir.path, "elsewhere");
    expect(cacheDirFor(join(dir.path, "a.c"), { WEBFW_NATIVE_CACHE: elsewhere })).toBe(elsewhere);
    expect(cacheDirFor(join(dir.path, "a.c"), {})).toBe(join(dir.path, ".webfw-cache"));
    expect(existsSync(elsewhere)).toBe(true);
  });
});

describe("loadNative: Rust", () => {
  test.skipIf(!HAS_RUSTC)("rustc --crate-type cdylib", () => {
    const src = file("mul-rs.rs", '#[no_mangle]\npub extern "C" fn mul(a: i32, b: i32) -> i32 { a * b }\n');
    const { mul } = loadNative(src, { mul: { args: ["i32", "i32"], returns: "i32" } });
    expect(mul(6, 7)).toBe(42);
    expect(compileNativeFile(src).cached).toBe(true);
  });

  test.skipIf(!HAS_RUSTC)("a Rust compile error is reported", () => {
    const src = file("bad.rs", "pub extern fn broken( {\n");
    expect(() => compileNativeFile(src)).toThrow(/rustc failed to compile .*bad\.rs/);
  });
});

describe("compileNativePath", () => {
  test.skipIf(!HAS_CC || !HAS_RUSTC)("compiles every .c and .rs in a folder, collects failures", () => {
    const folder = join(dir.path, "mixed");
    mkdirSync(join(folder, "helpers"), { recursive: true });
    writeFileSync(join(folder, "one.c"), "int one(void) { return 1; }\n");
    writeFileSync(join(folder, "two.rs"), '#[no_mangle]\npub extern "C" fn two() -> i32 { 2 }\n');
    writeFileSync(join(folder, "bad.c"), "int bad( { }\n");
    writeFileSync(join(folder, "notes.txt"), "not code");
    writeFileSync(join(folder, "helpers", "skipped.c"), "this is not even C");
    const report = compileNativePath(folder, { compiler: "cc" });
    expect(report.compiled.map((c) => [c.language, c.compiler])).toEqual([
      ["c", "cc"],
      ["rust", "rustc"],
    ]);
    expect(report.failed).toHaveLength(1);
    expect(report.failed[0]!.source).toBe(join(folder, "bad.c"));
    const lines = describeReport(report);
    expect(lines.some((l) => l.startsWith("compiled:") && l.includes("one.c"))).toBe(true);
    expect(lines.some((l) => l.startsWith("error:") && l.includes("bad.c"))).toBe(true);
    // loadNative finds what compileNativePath built.
    expect(compileNativeFile(join(folder, "one.c"), { compiler: "cc" }).cached).toBe(true);
  });

  test("a missing path is a failure, not a crash", () => {
    const report = compileNativePath(join(dir.path, "missing"));
    expect(report.compiled).toEqual([]);
    expect(report.failed[0]!.message).toContain("no such file or directory");
  });

  test("with TinyCC the report says it compiles at load time", () => {
    const folder = join(dir.path, "tcc-only");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "x.c"), "int x(void) { return 1; }\n");
    const report = compileNativePath(folder, { compiler: "tinycc" });
    expect(describeReport(report)[0]).toContain("TinyCC compiles it when it is loaded");
  });
});

describe("createNativeFile", () => {
  test("writes NAME.c and a NAME.ts binding that works", async () => {
    const created = createNativeFile("native/sum2", {
      cwd: dir.path,
      importFrom: join(import.meta.dir, "../../src/native/index.ts"),
    });
    expect(created.functionName).toBe("sum2");
    expect(created.language).toBe("c");
    expect(created.source).toBe(join(dir.path, "native/sum2.c"));
    expect(readFileSync(created.source, "utf8")).toContain("WEBFW_EXPORT int sum2(int a, int b)");
    expect(readFileSync(created.source, "utf8")).not.toContain("#include");
    const binding = readFileSync(created.binding, "utf8");
    expect(binding).toContain('import source from "./sum2.c" with { type: "file" };');
    const mod = (await import(created.binding)) as { sum2: (a: number, b: number) => number };
    expect(mod.sum2(40, 2)).toBe(42);
  });

  test("the C template compiles with TinyCC as well", () => {
    const created = createNativeFile("tcc_tpl", { cwd: dir.path });
    const { tcc_tpl } = loadNative(
      created.source,
      { tcc_tpl: { args: ["i32", "i32"], returns: "i32" } },
      {
        compiler: "tinycc",
      },
    );
    expect(tcc_tpl(1, 2)).toBe(3);
  });

  test.skipIf(!HAS_RUSTC)("NAME.rs writes Rust that loads", () => {
    const created = createNativeFile("rs_add.rs", { cwd: dir.path });
    expect(created.language).toBe("rust");
    expect(created.source.endsWith("rs_add.rs")).toBe(true);
    const { rs_add } = loadNative(created.source, { rs_add: { args: ["i32", "i32"], returns: "i32" } });
    expect(rs_add(20, 22)).toBe(42);
  });

  test("NAME.zig writes Zig", () => {
    const created = createNativeFile("zadd.zig", { cwd: dir.path });
    expect(readFileSync(created.source, "utf8")).toContain("export fn zadd(a: i32, b: i32) i32");
  });

  test("bad names and existing files are refused", () => {
    for (const bad of ["1abc", "has-dash", "int", "a b", "x.py", ""]) {
      expect(() => createNativeFile(bad, { cwd: dir.path })).toThrow(CreateNativeError);
    }
    createNativeFile("twice", { cwd: dir.path });
    let error: unknown;
    try {
      createNativeFile("twice", { cwd: dir.path });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CreateNativeError);
    expect((error as CreateNativeError).exitCode).toBe(1);
    expect((error as Error).message).toContain("already exists");
  });
});
