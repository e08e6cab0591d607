/**
 * The package's public entry points, read from package.json `exports` (docs/exports.md): the
 * subpath (`webfw`, `webfw/cors`, …), its source module (the built one's source) and its declaration file below
 * `dist/types`. The declaration scan, the surface test and the tarball test all start here, so a
 * new subpath is covered the day it is added to `exports`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const REPO = join(import.meta.dir, "../../..");

export interface PublicEntry {
  specifier: string;
  source: string;
  declaration: string;
}

export function publicEntries(): PublicEntry[] {
  const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
    exports: Record<string, string | { types: string; default: string }>;
  };
  const entries: PublicEntry[] = [];
  for (const [key, target] of Object.entries(pkg.exports)) {
    if (typeof target === "string") continue; // ./package.json
    entries.push({
      specifier: key === "." ? "webfw" : `webfw/${key.slice(2)}`,
      // `default` is the built module (`./dist/src/index.js`); its source is `src/index.ts` (docs/packaging.md).
      source: target.default.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts"),
      declaration: target.types.replace(/^\.\/dist\/types\//, ""),
    });
  }
  return entries;
}

/** The entry points' declaration files, relative to `dist/types`. */
export function publicEntryDeclarations(): string[] {
  return publicEntries().map((entry) => entry.declaration);
}
