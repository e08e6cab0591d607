/** Compiles C, Rust and Zig sources into shared libraries in the native cache. */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, extname, join } from "node:path";
import {
  cacheDirFor,
  commit,
  discard,
  isEmbedded,
  libraryPath,
  resolveSource,
  temporaryPath,
} from "./cache.ts";

export type NativeLanguage = "c" | "rust" | "zig";
export type NativeCompiler = "cc" | "tinycc" | "rustc" | "zig";
/** `auto` uses the system C compiler when there is one, else TinyCC; the others force one. */
export type CCompilerChoice = "auto" | "cc" | "tinycc";

type Env = Record<string, string | undefined>;

export interface CompileOptions {
  /** Override the cache directory (default: see `cacheDirFor`). */
  cacheDir?: string;
  /** Other inputs of the build (the bytes of headers the source includes): part of the cache key, so editing one rebuilds. */
  dependsOn?: string[];
  /** For `.c` files; `$WEBFW_NATIVE_COMPILER` sets it too. */
  compiler?: CCompilerChoice;
  env?: Env;
}

export interface CompiledNative {
  source: string;
  language: NativeLanguage;
  compiler: NativeCompiler;
  /**
   * The shared library to `dlopen`. Absent for TinyCC, which compiles in memory
   * when the source is loaded (it writes no library file); `realSource` is then
   * the file to give it.
   */
  library?: string;
  /** A readable on-disk copy of the source (differs from `source` for embedded files). */
  realSource: string;
  /** True when the library was already in the cache. */
  cached: boolean;
}

/** A source that did not compile; `output` is the compiler's own message. */
export class NativeCompileError extends Error {
  readonly source: string;
  readonly output: string;

  constructor(source: string, message: string, output = "") {
    super(output ? `${message}\n${output.trimEnd()}` : message);
    this.name = "NativeCompileError";
    this.source = source;
    this.output = output;
  }
}

const LANGUAGES: Record<string, NativeLanguage> = { ".c": "c", ".rs": "rust", ".zig": "zig" };

export function languageOf(path: string): NativeLanguage | undefined {
  return LANGUAGES[extname(path).toLowerCase()];
}

/** The system C compiler: `$CC`, else the first of cc, gcc and clang on the PATH; `undefined` when none is installed. */
export function systemCCompiler(env: Env = process.env): string | undefined {
  for (const name of [env.CC?.trim(), "cc", "gcc", "clang"]) {
    const found = name ? Bun.which(name) : null;
    if (found) return found;
  }
  return undefined;
}

function cChoice(options: CompileOptions, env: Env): CCompilerChoice {
  const fromEnv = env.WEBFW_NATIVE_COMPILER?.trim().toLowerCase();
  const choice = options.compiler ?? (fromEnv === "cc" || fromEnv === "tinycc" ? fromEnv : "auto");
  return choice;
}

interface Recipe {
  compiler: NativeCompiler;
  /** Builds the command writing `out` from `src`. */
  command: (src: string, out: string) => string[];
  /** Identifies the command in the cache key. */
  id: string;
}

function recipeFor(language: NativeLanguage, source: string, options: CompileOptions, env: Env): Recipe {
  if (language === "c") {
    const choice = cChoice(options, env);
    const cc = choice === "tinycc" ? undefined : systemCCompiler(env);
    if (choice === "cc" && !cc) {
      throw new NativeCompileError(
        source,
        "no system C compiler (cc or $CC) found; install one or use TinyCC",
      );
    }
    if (!cc) return { compiler: "tinycc", command: () => [], id: "tinycc" };
    const flags = ["-O2", "-shared", "-fPIC"];
    return {
      compiler: "cc",
      id: `${cc} ${flags.join(" ")}`,
      command: (src, out) => [cc, ...flags, "-o", out, src],
    };
  }
  if (language === "rust") {
    const rustc = Bun.which("rustc");
    if (!rustc)
      throw new NativeCompileError(source, "rustc is not installed (https://rustup.rs); cannot compile");
    // A file name is not always a valid crate name (dashes), so name the crate explicitly.
    const crate = basename(source, extname(source)).replace(/\W/g, "_").replace(/^(\d)/, "_$1");
    return {
      compiler: "rustc",
      id: "rustc --crate-type cdylib -O",
      command: (src, out) => [rustc, "--crate-type", "cdylib", "-O", "--crate-name", crate, "-o", out, src],
    };
  }
  const zig = Bun.which("zig");
  if (!zig)
    throw new NativeCompileError(source, "zig is not installed (https://ziglang.org); cannot compile");
  return {
    compiler: "zig",
    id: "zig build-lib -dynamic -O ReleaseFast",
    command: (src, out) => [zig, "build-lib", "-dynamic", "-O", "ReleaseFast", `-femit-bin=${out}`, src],
  };
}

/**
 * Compiles one source into the cache (or finds it there). Synchronous, so that
 * `loadNative()` can be called at module top level. Throws `NativeCompileError`.
 */
export function compileNativeFile(path: string, options: CompileOptions = {}): CompiledNative {
  const env = options.env ?? process.env;
  const source = resolveSource(path);
  const language = languageOf(source);
  if (!language) throw new NativeCompileError(source, `not a native source (.c, .rs or .zig): ${source}`);
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(source);
  } catch {
    throw new NativeCompileError(source, `cannot read native source ${source}`);
  }
  const recipe = recipeFor(language, source, options, env);
  const cacheDir = options.cacheDir ?? cacheDirFor(source, env);
  mkdirSync(cacheDir, { recursive: true });
  const inputs = (options.dependsOn ?? []).map((path) => readFileSync(path, "utf8"));
  const library = libraryPath(cacheDir, source, bytes, [recipe.id, ...inputs].join("\0"));
  const realSource = readableCopy(source, bytes, library);

  if (recipe.compiler === "tinycc") {
    return { source, language, compiler: "tinycc", realSource, cached: false };
  }
  if (existsSync(library))
    return { source, language, compiler: recipe.compiler, library, realSource, cached: true };

  const temp = temporaryPath(library);
  const result = Bun.spawnSync(recipe.command(realSource, temp), { stdout: "pipe", stderr: "pipe", env });
  if (!result.success) {
    discard(temp);
    const output = `${result.stderr.toString()}${result.stdout.toString()}`;
    throw new NativeCompileError(source, `${recipe.compiler} failed to compile ${source}`, output);
  }
  commit(temp, library);
  return { source, language, compiler: recipe.compiler, library, realSource, cached: false };
}

// Compilers (and TinyCC) read real files only: an embedded source is copied out first.
function readableCopy(source: string, bytes: Uint8Array, library: string): string {
  if (!isEmbedded(source)) return source;
  const copy = library.replace(/\.[^.]+$/, `.src${extname(source)}`);
  if (!existsSync(copy)) writeFileSync(copy, bytes);
  return copy;
}

export interface CompileReport {
  compiled: CompiledNative[];
  failed: NativeCompileError[];
}

/**
 * Compiles every `.c`, `.rs` and `.zig` file directly in `path` (or `path` itself
 * when it is a file). Subfolders are not searched, so helper sources can live in
 * one. Failures are collected, not thrown, so one bad file does not hide the others.
 */
export function compileNativePath(path: string, options: CompileOptions = {}): CompileReport {
  const target = resolveSource(path);
  let files: string[];
  try {
    files = statSync(target).isDirectory()
      ? readdirSync(target)
          .filter((name) => languageOf(name) && !name.startsWith("."))
          .sort()
          .map((name) => join(target, name))
      : [target];
  } catch {
    return { compiled: [], failed: [new NativeCompileError(target, `no such file or directory: ${target}`)] };
  }
  const report: CompileReport = { compiled: [], failed: [] };
  for (const file of files) {
    try {
      report.compiled.push(compileNativeFile(file, options));
    } catch (error) {
      report.failed.push(
        error instanceof NativeCompileError ? error : new NativeCompileError(file, String(error)),
      );
    }
  }
  return report;
}

/** One line per file, for the command line. */
export function describeReport(report: CompileReport): string[] {
  const lines = report.compiled.map((c) =>
    c.library
      ? `${c.cached ? "up to date" : "compiled"}: ${c.source} -> ${c.library} (${c.compiler})`
      : `ok: ${c.source} (no C compiler: TinyCC compiles it when it is loaded)`,
  );
  for (const failure of report.failed) lines.push(`error: ${failure.message}`);
  return lines;
}
