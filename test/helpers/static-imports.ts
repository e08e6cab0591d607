/**
 * Every file a module loads at start: its static imports, relative ones followed (Bun's own scan,
 * `Bun.Transpiler.scanImports`; dynamic `import()` and `require()` are not followed). Used on the
 * bench's yardsticks (test/bench/yardstick-imports.test.ts) and on the built package
 * (test/package/lazy-chunks.test.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

const transpiler = new Bun.Transpiler({ loader: "ts" });

/** Absolute paths, `file` included. */
export function staticallyLoaded(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const { path, kind } of transpiler.scanImports(readFileSync(file, "utf8"))) {
    if (kind !== "import-statement" || !path.startsWith(".")) continue;
    const target = resolve(dirname(file), path);
    if (existsSync(target)) staticallyLoaded(target, seen);
  }
  return seen;
}
