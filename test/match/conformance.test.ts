import { describe, expect, test } from "bun:test";
import { allEngines } from "./engines.ts";
import { conformanceTable } from "./table.ts";

const short = (p: string) => (p.length > 60 ? `${p.slice(0, 40)}…(${p.length} chars)` : p);

for (const engine of allEngines) {
  describe(`conformance: ${engine.name}`, () => {
    for (const group of conformanceTable) {
      test(group.name, async () => {
        const paths = group.checks.map(([path]) => path);
        const got = await engine.run(group.routes, paths, group.raw);
        // Compare per path so a failure names the path.
        group.checks.forEach(([path, expected], i) => {
          expect({ path: short(path), result: got[i] }).toEqual({ path: short(path), result: expected });
        });
      }, 60_000);
    }
  });
}
