/** `loadNative()`: typed functions from a C, Rust or Zig source (compiled on demand) or a ready library. */

import { type ConvertFns, cc, dlopen, type FFIFunction, type Library } from "bun:ffi";
import { copyFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, extname, join } from "node:path";
import { isEmbedded, resolveSource } from "./cache.ts";
import { type CompileOptions, compileNativeFile, languageOf, NativeCompileError } from "./compile.ts";

export type NativeSymbols = Record<string, FFIFunction>;
export type LoadNativeOptions = CompileOptions;

// Libraries stay open for the life of the process; holding them here keeps them from being collected.
const opened = new Set<Library<NativeSymbols>>();

const LIBRARY_EXTENSIONS = new Set([".so", ".dylib", ".dll"]);

/**
 * Returns the typed functions of a native source or library:
 *
 * ```ts
 * const { add } = loadNative(`${import.meta.dir}/native/add.c`, {
 *   add: { args: ["i32", "i32"], returns: "i32" },
 * });
 * add(2, 3); // 5
 * ```
 *
 * - `.c`: compiled with the system `cc -O2 -shared -fPIC` into the cache and
 *   `dlopen`ed; without a C compiler, compiled in memory by TinyCC (`bun:ffi` `cc`).
 * - `.rs`: `rustc --crate-type cdylib -O` (functions need `#[no_mangle] pub extern "C"`).
 * - `.zig`: `zig build-lib -dynamic -O ReleaseFast` (functions need `export fn`).
 * - `.so` / `.dylib` / `.dll`: `dlopen`ed as is.
 *
 * The compiled library is reused while the source is unchanged (`--compile-native-path`
 * fills the same cache ahead of time). Relative paths are resolved against the working
 * directory; prefer `import.meta.dir` or a `with { type: "file" }` import, which also
 * embeds the source in a single binary. Throws `NativeCompileError` when the source
 * does not compile, and an Error naming the file when a symbol is missing.
 */
export function loadNative<const Fns extends NativeSymbols>(
  path: string,
  symbols: Fns,
  options: LoadNativeOptions = {},
): ConvertFns<Fns> {
  const source = resolveSource(path);
  const ext = extname(source).toLowerCase();

  if (LIBRARY_EXTENSIONS.has(ext)) return open(source, readableLibrary(source), symbols);
  if (!languageOf(source)) {
    throw new NativeCompileError(
      source,
      `loadNative: expected a .c, .rs, .zig or shared library file: ${source}`,
    );
  }
  const compiled = compileNativeFile(source, options);
  if (compiled.library) return open(source, compiled.library, symbols);

  try {
    const library = cc({ source: compiled.realSource, symbols });
    opened.add(library as unknown as Library<NativeSymbols>);
    return library.symbols;
  } catch (error) {
    throw new NativeCompileError(source, `TinyCC failed to compile ${source}`, errorText(error));
  }
}

function open<Fns extends NativeSymbols>(source: string, library: string, symbols: Fns): ConvertFns<Fns> {
  try {
    const lib = dlopen(library, symbols);
    opened.add(lib as unknown as Library<NativeSymbols>);
    return lib.symbols;
  } catch (error) {
    throw new Error(`loadNative: cannot load ${source}: ${errorText(error)}`);
  }
}

// dlopen() needs a real file: a library embedded in a single binary is copied out first.
function readableLibrary(path: string): string {
  if (!isEmbedded(path)) return path;
  const copy = join(tmpdir(), `webfw-${process.pid}-${basename(path)}`);
  if (!existsSync(copy)) copyFileSync(path, copy);
  return copy;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
