/**
 * Node builtins that only some features use, loaded on first use: each one costs resident memory
 * once loaded (on top of `bun` alone: `node:fs` ~3 MB, `node:fs/promises` ~2.5 MB, `node:path`
 * ~1.7 MB, much of it shared), so a server that never serves a file, saves an upload or renders a
 * template does not load them (docs/performance.md, "Idle memory").
 */
import type * as Fs from "node:fs";
import type * as FsPromises from "node:fs/promises";
import type * as Path from "node:path";

let loadedFs: typeof Fs | undefined;
let loadedFsPromises: typeof FsPromises | undefined;
let loadedPath: typeof Path | undefined;

export function nodeFs(): typeof Fs {
  loadedFs ??= require("node:fs") as typeof Fs;
  return loadedFs;
}

export function nodeFsPromises(): typeof FsPromises {
  loadedFsPromises ??= require("node:fs/promises") as typeof FsPromises;
  return loadedFsPromises;
}

export function nodePath(): typeof Path {
  loadedPath ??= require("node:path") as typeof Path;
  return loadedPath;
}
