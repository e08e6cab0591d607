/** Where compiled native libraries live, and how a source maps to its cached library. */

import { suffix } from "bun:ffi";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, extname, isAbsolute, join, resolve } from "node:path";
import { isEmbedded } from "../embed/embedded.ts";

export { isEmbedded };

type Env = Record<string, string | undefined>;

/** Resolves a user path against the working directory, leaving embedded paths alone. */
export function resolveSource(path: string): string {
  return isEmbedded(path) || isAbsolute(path) ? path : resolve(path);
}

function fallbackDir(): string {
  return join(tmpdir(), "webfw-native-cache");
}

/**
 * The cache directory for a source: `$WEBFW_NATIVE_CACHE` when set, else
 * `.webfw-cache/` beside the source (so `--compile-native-path` and `loadNative()`
 * agree whatever the working directory), else the temp directory when the source
 * is embedded or its folder is read-only.
 */
export function cacheDirFor(sourcePath: string, env: Env = process.env): string {
  const wanted = env.WEBFW_NATIVE_CACHE?.trim()
    ? resolve(env.WEBFW_NATIVE_CACHE.trim())
    : isEmbedded(sourcePath)
      ? fallbackDir()
      : join(dirname(sourcePath), ".webfw-cache");
  try {
    mkdirSync(wanted, { recursive: true });
    return wanted;
  } catch {
    const dir = fallbackDir();
    mkdirSync(dir, { recursive: true });
    return dir;
  }
}

/**
 * The library file for a source: named after the source and a hash of its bytes
 * and of the compiler command, so an edit gives a new file (a process that already
 * `dlopen`ed the old one keeps it; `dlopen` of a changed file in place would not reload).
 */
export function libraryPath(
  cacheDir: string,
  sourcePath: string,
  source: Uint8Array,
  recipe: string,
): string {
  const hash = new Bun.CryptoHasher("sha256")
    .update(recipe)
    .update("\0")
    .update(`${process.platform}-${process.arch}`)
    .update("\0")
    .update(source)
    .digest("hex")
    .slice(0, 16);
  const stem = basename(sourcePath, extname(sourcePath)).replace(/[^\w.-]/g, "_");
  return join(cacheDir, `${stem}-${hash}.${suffix}`);
}

/** A unique temporary name next to `finalPath`: compile there, then `commit` it, so concurrent processes never load half a file. */
export function temporaryPath(finalPath: string): string {
  const dot = finalPath.lastIndexOf(".");
  const unique = `${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  return `${finalPath.slice(0, dot)}.tmp-${unique}${finalPath.slice(dot)}`;
}

export function commit(tempPath: string, finalPath: string): void {
  renameSync(tempPath, finalPath);
}

export function discard(path: string): void {
  rmSync(path, { force: true });
}
