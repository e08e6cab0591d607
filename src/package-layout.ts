/**
 * Where webfw's own files are, in either of its two layouts (docs/packaging.md): the sources
 * (`src/…/*.ts`, the repository's tests and tools) or the built package users install
 * (`dist/src/*.js` entries, `dist/chunks/*.js` shared code). A module that finds a file of the
 * package from `import.meta` asks here instead, because once bundled its code sits in a chunk
 * whose folder says nothing about the module it came from. scripts/build.ts sets the define.
 */
import { nodeFs, nodePath } from "./builtins.ts";

/** True in the built package: scripts/build.ts replaces the expression with "dist". */
export const BUILT: boolean = process.env.WEBFW_BUILT_LAYOUT === "dist";

let root: string | undefined;

/**
 * The package's root folder (package.json, dist/, docs/). In the sources it is this file's
 * folder's parent; built, the nearest folder up from the chunk that holds webfw's package.json.
 * Inside a `bun build --compile` executable neither exists on disk: the guess is returned as is.
 */
export function packageRoot(): string {
  if (root !== undefined) return root;
  const here = import.meta.dir;
  const path = nodePath();
  if (!BUILT) {
    root = path.dirname(here);
    return root;
  }
  for (let dir = here; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (nodeFs().existsSync(manifest) && isWebfwManifest(manifest)) {
      root = dir;
      return root;
    }
    if (path.dirname(dir) === dir) break;
  }
  root = path.dirname(here.endsWith("/chunks") ? path.dirname(here) : here);
  return root;
}

function isWebfwManifest(file: string): boolean {
  try {
    return (JSON.parse(nodeFs().readFileSync(file, "utf8")) as { name?: unknown }).name === "webfw";
  } catch {
    return false;
  }
}

/**
 * The folder holding the framework's code, with a trailing slash: `<root>/src/` or `<root>/dist/`.
 * A stack frame under it is the framework's, not the app's (src/router/route-source.ts).
 */
export function frameworkCodeDir(): string {
  return `${packageRoot()}/${BUILT ? "dist" : "src"}/`;
}

/** A module's path inside the package in this layout: `src/a/b.ts`, or `dist/src/a/b.js` built. */
export function layoutPath(sourcePath: string): string {
  return BUILT ? `dist/${sourcePath.replace(/\.ts$/, ".js")}` : sourcePath;
}

/** A module of the package by its source path (`src/workers/worker-entry.ts`), in this layout. */
export function packageModule(sourcePath: string): string {
  return `${packageRoot()}/${layoutPath(sourcePath)}`;
}
