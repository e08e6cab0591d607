/**
 * The built package's lazily required chunks (docs/packaging.md, "Lazy chunks in a `webfw build`").
 *
 * In dist/, a lazy `require()` of webfw's is `import.meta.require("./chunk.js")` (and, for a
 * dependency, `__require("mustache")`, Bun's alias of the same): the module is evaluated when the
 * call runs. `bun build --compile` does not follow those calls, so the module would be missing from
 * an executable. scripts/build.ts reads from `Bun.build`'s metafile which output requires which
 * chunk or package and writes the list beside the code (`dist/lazy-chunks.json`); `webfw build`
 * turns exactly those calls back into `require()`, which the bundler follows (the module is then
 * bundled, still evaluated on the first call), and fails when one of them is not where the list says.
 */
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** The list's file name, in the built package's dist/ folder. */
export const LAZY_CHUNKS_FILE = "lazy-chunks.json";

/** What scripts/build.ts writes to `dist/lazy-chunks.json`. */
export interface LazyChunks {
  /**
   * Each output that requires chunks lazily (its path inside dist/, `/`-separated, e.g.
   * `src/index.js`, `chunks/admit-z030yc5t.js`) → the specifiers it passes to
   * `import.meta.require`, relative to itself (`../chunks/jwks-8m9a21b9.js`).
   */
  requires: Record<string, string[]>;
  /**
   * Each output that requires packages lazily (not Node's built-in modules, which every executable
   * has) → their names (`mustache`), called as `__require("mustache")`.
   */
  packages: Record<string, string[]>;
}

/** The call as the bundler writes it for a chunk's `specifier`. */
export function lazyRequireCall(specifier: string): string {
  return `import.meta.require(${JSON.stringify(specifier)})`;
}

/** The call as the bundler writes it for a package (`__require`, its alias of `import.meta.require`). */
export function lazyPackageCall(name: string): string {
  return `__require(${JSON.stringify(name)})`;
}

/** The calls listed for one output (its path inside dist/), each with what it requires. */
export function listedCalls(chunks: LazyChunks, file: string): { call: string; specifier: string }[] {
  return [
    ...(chunks.requires[file] ?? []).map((specifier) => ({ call: lazyRequireCall(specifier), specifier })),
    ...(chunks.packages[file] ?? []).map((specifier) => ({ call: lazyPackageCall(specifier), specifier })),
  ];
}

/** Reads the list of the package's dist/ folder; throws with what to do when it is missing. */
export function readLazyChunks(distDir: string): LazyChunks {
  const file = join(distDir, LAZY_CHUNKS_FILE);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(
      `${file} could not be read (${(error as Error).message}): this dist/ was not built by webfw's scripts/build.ts; rebuild the package (npm run build)`,
    );
  }
  const { requires, packages } = (parsed ?? {}) as Partial<LazyChunks>;
  if (typeof requires !== "object" || requires === null || typeof packages !== "object" || packages === null)
    throw new Error(`${file} lacks its "requires" or "packages" map: rebuild the package (npm run build)`);
  return { requires, packages };
}

/**
 * Replaces, in one output's code, each listed call by `require(…)`. Plain string replacement of the
 * calls the build recorded, each of which must be there: a dist/ that no longer matches its list
 * fails the build instead of leaving a module out of the executable.
 */
export function requireListedCalls(
  code: string,
  calls: readonly { call: string; specifier: string }[],
  file: string,
): string {
  let out = code;
  for (const { call, specifier } of calls) {
    const parts = out.split(call);
    if (parts.length === 1)
      throw new Error(
        `${file}: ${call} is listed in ${LAZY_CHUNKS_FILE} but not in the code; rebuild the package`,
      );
    out = parts.join(`require(${JSON.stringify(specifier)})`);
  }
  return out;
}

/**
 * A Bun plugin for an app that imports the built package: the outputs of `distDir` that
 * `dist/lazy-chunks.json` lists get their lazy requires turned into `require()`, so that
 * `bun build --compile` embeds those chunks and packages. Other files load as they are.
 */
export function builtPackageRequires(
  distDir: string,
  chunks: LazyChunks = readLazyChunks(distDir),
): Bun.BunPlugin {
  const escaped = distDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return {
    name: "webfw-built-package-requires",
    setup(build) {
      build.onLoad({ filter: new RegExp(`^${escaped}.*\\.js$`) }, async (args) => {
        const key = relative(distDir, args.path).split(sep).join("/");
        const text = await Bun.file(args.path).text();
        const calls = listedCalls(chunks, key);
        return { contents: calls.length > 0 ? requireListedCalls(text, calls, key) : text, loader: "js" };
      });
    },
  };
}
