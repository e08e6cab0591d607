/**
 * Builds and loads `native/router.c` for the `ffi` engine.
 *
 * The same toolchain as `loadNative()` (src/native/): with a system C compiler
 * the source is built once at `-O2` into a shared library in the native cache
 * (keyed by a hash of the source, the compiler and the platform) and loaded
 * with `dlopen`. Without one, Bun's bundled TinyCC (`cc` from `bun:ffi`)
 * compiles it at start-up. Inside a `bun build --compile` binary the sources
 * live in Bun's embedded file system, which neither compiler can read, so
 * router.c and router.h are first copied to a real directory together.
 */

import { cc, dlopen, FFIType, type Library, type Pointer } from "bun:ffi";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import routerSource from "../../native/router.c" with { type: "file" };
import routerHeader from "../../native/router.h" with { type: "file" };
import { isEmbedded } from "../native/cache.ts";
import { type CompiledNative, compileNativeFile } from "../native/compile.ts";

export const routerSymbols = {
  wf_router_new: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.ptr },
  wf_router_free: { args: [FFIType.ptr], returns: FFIType.void },
  wf_router_buffer: { args: [FFIType.ptr], returns: FFIType.ptr },
  wf_router_buffer_capacity: { args: [FFIType.ptr], returns: FFIType.i32 },
  wf_router_reserve: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
  wf_router_results: { args: [FFIType.ptr], returns: FFIType.ptr },
  wf_router_results_capacity: { args: [FFIType.ptr], returns: FFIType.i32 },
  wf_router_add: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
  wf_router_match: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
  wf_router_route_count: { args: [FFIType.ptr], returns: FFIType.i32 },
} as const;

export type RouterSymbols = Library<typeof routerSymbols>["symbols"];

/** How to obtain the library: `auto` prefers the system compiler and falls back to TinyCC. */
export type NativeLoader = "auto" | "dlopen" | "tinycc";

export interface LoadedRouter {
  symbols: RouterSymbols;
  /** Which path actually loaded it. */
  loader: "dlopen" | "tinycc";
  /** Path of the cached shared library (dlopen only). */
  libraryPath: string | null;
  /** Function pointers of the C allocator the router is given. */
  malloc: Pointer;
  free: Pointer;
}

const loaded = new Map<"dlopen" | "tinycc", LoadedRouter>();

/** Loads (building if needed) the router library; each loader runs once per process. */
export function loadRouter(loader: NativeLoader = "auto"): LoadedRouter {
  if (loader === "tinycc") return loadWithTinyCC();
  if (loader === "dlopen") return loadWithSystemCompiler();
  const cached = loaded.get("dlopen") ?? loaded.get("tinycc");
  if (cached) return cached;
  try {
    return loadWithSystemCompiler();
  } catch (error) {
    try {
      return loadWithTinyCC();
    } catch (fallback) {
      throw new Error(
        `cannot load native/router.c: system compiler: ${(error as Error).message}; TinyCC: ${(fallback as Error).message}`,
      );
    }
  }
}

function libc(): { malloc: Pointer; free: Pointer } {
  const candidates =
    process.platform === "darwin"
      ? ["libSystem.B.dylib", "/usr/lib/libSystem.B.dylib"]
      : process.platform === "win32"
        ? ["msvcrt.dll", "ucrtbase.dll"]
        : ["libc.so.6", "libc.so", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"];
  for (const name of candidates) {
    try {
      const lib = dlopen(name, {
        malloc: { args: [FFIType.u64], returns: FFIType.ptr },
        free: { args: [FFIType.ptr], returns: FFIType.void },
      });
      // Bun exposes each symbol's address as `.ptr` (not in the typings).
      const malloc = (lib.symbols.malloc as unknown as { ptr?: unknown }).ptr;
      const free = (lib.symbols.free as unknown as { ptr?: unknown }).ptr;
      // The library stays open for the process: routers keep calling these pointers.
      if (typeof malloc === "number" && typeof free === "number" && malloc !== 0 && free !== 0) {
        return { malloc: malloc as Pointer, free: free as Pointer };
      }
    } catch {
      // try the next name
    }
  }
  throw new Error(`no C library found to allocate from (tried ${candidates.join(", ")})`);
}

let allocator: { malloc: Pointer; free: Pointer } | null = null;

function getAllocator(): { malloc: Pointer; free: Pointer } {
  allocator ??= libc();
  return allocator;
}

let sourceDirectory: string | null = null;

/**
 * A directory holding router.c and router.h on the real file system: their own when they are
 * real files, else (inside a `bun build --compile` binary, where compilers cannot read Bun's
 * embedded files) a copy in the temp directory, named by a hash of both.
 */
function sourceDir(): string {
  if (sourceDirectory) return sourceDirectory;
  const onDisk = (path: string) => !isEmbedded(path) && existsSync(path);
  if (onDisk(routerSource) && onDisk(routerHeader) && dirname(routerSource) === dirname(routerHeader)) {
    sourceDirectory = dirname(routerSource);
    return sourceDirectory;
  }
  // readFileSync works on both real files and Bun's embedded ones.
  const source = readFileSync(routerSource, "utf8");
  const header = readFileSync(routerHeader, "utf8");
  const hash = new Bun.CryptoHasher("sha256").update(source).update("\0").update(header).digest("hex");
  const dir = join(tmpdir(), `webfw-native-${hash.slice(0, 16)}`);
  mkdirSync(dir, { recursive: true });
  // Write under temporary names, then rename: concurrent processes never see half a file.
  for (const [name, text] of [
    ["router.c", source],
    ["router.h", header],
  ] as const) {
    const tmp = join(dir, `${name}.${process.pid}.tmp`);
    writeFileSync(tmp, text);
    renameSync(tmp, join(dir, name));
  }
  sourceDirectory = dir;
  return dir;
}

/**
 * Compiles router.c with the one native toolchain (src/native/compile.ts): the same cache
 * (`$WEBFW_NATIVE_CACHE`, else `.webfw-cache/` beside the source, else the temp directory),
 * the same compiler rule (`$CC`, cc, gcc, clang) and the same embedded-file rule as `loadNative`.
 */
function compileRouter(compiler: "cc" | "tinycc"): CompiledNative {
  const dir = sourceDir();
  return compileNativeFile(join(dir, "router.c"), { compiler, dependsOn: [join(dir, "router.h")] });
}

function loadWithSystemCompiler(): LoadedRouter {
  const cached = loaded.get("dlopen");
  if (cached) return cached;
  const compiled = compileRouter("cc");
  const libraryPath = compiled.library as string;
  let lib: Library<typeof routerSymbols>;
  try {
    lib = dlopen(libraryPath, routerSymbols);
  } catch {
    // A truncated or foreign file in the cache: build again once.
    rmSync(libraryPath, { force: true });
    lib = dlopen(compileRouter("cc").library as string, routerSymbols);
  }
  const { malloc, free } = getAllocator();
  const result: LoadedRouter = { symbols: lib.symbols, loader: "dlopen", libraryPath, malloc, free };
  loaded.set("dlopen", result);
  return result;
}

function loadWithTinyCC(): LoadedRouter {
  const cached = loaded.get("tinycc");
  if (cached) return cached;
  const { realSource } = compileRouter("tinycc");
  const lib = cc({ source: realSource, include: [dirname(realSource)], symbols: routerSymbols });
  const { malloc, free } = getAllocator();
  const result: LoadedRouter = { symbols: lib.symbols, loader: "tinycc", libraryPath: null, malloc, free };
  loaded.set("tinycc", result);
  return result;
}
