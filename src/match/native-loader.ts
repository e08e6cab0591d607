/**
 * Builds and loads `native/router.c` for the `ffi` engine.
 *
 * With a system C compiler the source is built once at `-O2` into a shared
 * library in a cache directory (keyed by a hash of the sources, the compiler
 * and the platform) and loaded with `dlopen`. Without one, Bun's bundled
 * TinyCC (`cc` from `bun:ffi`) compiles it at start-up. Inside a
 * `bun build --compile` binary the sources live in Bun's embedded file system,
 * which neither compiler can read, so they are first copied to a real file.
 */

import { cc, dlopen, FFIType, type Library, type Pointer, suffix } from "bun:ffi";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import routerSource from "../../native/router.c" with { type: "file" };
import routerHeader from "../../native/router.h" with { type: "file" };

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

let sources: { source: string; header: string; hash: string } | null = null;

function readSources(): { source: string; header: string; hash: string } {
  if (sources) return sources;
  // readFileSync works on both real files and Bun's embedded ones.
  const source = readText(routerSource);
  const header = readText(routerHeader);
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(source).update("\0").update(header);
  sources = { source, header, hash: hasher.digest("hex").slice(0, 16) };
  return sources;
}

function readText(path: string): string {
  return readFileSync(path, "utf8");
}

function isEmbedded(path: string): boolean {
  return path.startsWith("/$bunfs/") || path.includes("~BUN") || !existsSync(path);
}

/** A directory holding router.c and router.h on the real file system. */
function sourceDir(): string {
  if (!isEmbedded(routerSource) && !isEmbedded(routerHeader)) {
    if (dirname(routerSource) === dirname(routerHeader)) return dirname(routerSource);
  }
  const { source, header, hash } = readSources();
  const dir = join(tmpdir(), `webfw-native-${hash}`);
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
  return dir;
}

function writable(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The cache directory: WEBFW_CACHE_DIR, $XDG_CACHE_HOME/webfw, node_modules/.cache/webfw, ~/.cache/webfw, or the temp dir. */
export function cacheDir(): string {
  const env = process.env;
  const candidates = [
    env.WEBFW_CACHE_DIR,
    env.XDG_CACHE_HOME ? join(env.XDG_CACHE_HOME, "webfw") : undefined,
    existsSync(join(process.cwd(), "node_modules"))
      ? join(process.cwd(), "node_modules", ".cache", "webfw")
      : undefined,
    join(homedir(), ".cache", "webfw"),
    join(tmpdir(), "webfw-cache"),
  ];
  for (const dir of candidates) if (dir && writable(dir)) return dir;
  throw new Error("no writable cache directory for the native router");
}

/** The system C compiler: $CC, else cc, gcc or clang from PATH. */
export function findCompiler(): string | null {
  const names = [process.env.CC, "cc", "gcc", "clang"];
  for (const name of names) {
    if (!name) continue;
    const found = Bun.which(name);
    if (found) return found;
  }
  return null;
}

const CFLAGS = ["-O2", "-shared", "-fPIC", "-std=c99"];

function loadWithSystemCompiler(): LoadedRouter {
  const cached = loaded.get("dlopen");
  if (cached) return cached;
  const compiler = findCompiler();
  if (!compiler) throw new Error("no C compiler found ($CC, cc, gcc, clang)");
  const { hash } = readSources();
  const key = new Bun.CryptoHasher("sha256")
    .update([hash, compiler, ...CFLAGS, process.platform, process.arch].join("\0"))
    .digest("hex")
    .slice(0, 16);
  const libraryPath = join(cacheDir(), `router-${key}.${suffix}`);
  if (!existsSync(libraryPath)) build(compiler, libraryPath);
  let lib: Library<typeof routerSymbols>;
  try {
    lib = dlopen(libraryPath, routerSymbols);
  } catch {
    // A truncated or foreign file in the cache: build again once.
    build(compiler, libraryPath);
    lib = dlopen(libraryPath, routerSymbols);
  }
  const { malloc, free } = getAllocator();
  const result: LoadedRouter = { symbols: lib.symbols, loader: "dlopen", libraryPath, malloc, free };
  loaded.set("dlopen", result);
  return result;
}

function build(compiler: string, libraryPath: string): void {
  const dir = sourceDir();
  const tmp = `${libraryPath}.${process.pid}.tmp`;
  const proc = Bun.spawnSync([compiler, ...CFLAGS, "-o", tmp, join(dir, "router.c")], {
    stdout: "pipe",
    stderr: "pipe",
  });
  if (proc.exitCode !== 0) {
    rmSync(tmp, { force: true });
    throw new Error(`${compiler} failed (${proc.exitCode}): ${proc.stderr.toString().trim()}`);
  }
  renameSync(tmp, libraryPath);
}

function loadWithTinyCC(): LoadedRouter {
  const cached = loaded.get("tinycc");
  if (cached) return cached;
  const dir = sourceDir();
  const lib = cc({ source: join(dir, "router.c"), include: [dir], symbols: routerSymbols });
  const { malloc, free } = getAllocator();
  const result: LoadedRouter = { symbols: lib.symbols, loader: "tinycc", libraryPath: null, malloc, free };
  loaded.set("tinycc", result);
  return result;
}
