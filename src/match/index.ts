/**
 * Engine selection. `bun` routes inside `Bun.serve` natively; whenever a path
 * must be matched outside it (405 detection, the in-process test client) the
 * JS trie does the job, so `createMatcher("bun")` is a `JsMatcher`. The `ffi` engine's module (and
 * `bun:ffi`, the C compiler) loads only when that engine is chosen (idle memory, docs/performance.md).
 */
import type * as Ffi from "./ffi.ts";
import { JsMatcher } from "./js.ts";
import type { PathMatcher, RouterEngine } from "./types.ts";

export { bunRouteKeys, bunRouteTable, compileParamReader, rawParams, wildcardValue } from "./bun-routes.ts";
export type { FfiMatcher, FfiMatcherOptions, NativeLoader } from "./ffi.ts";
export { JsMatcher } from "./js.ts";
export { encodeStaticSegment, normalisePath, parsePattern, splitPattern } from "./pattern.ts";
export type { PathMatch, PathMatcher, RouterEngine } from "./types.ts";

export function createMatcher(engine: RouterEngine): PathMatcher {
  switch (engine) {
    case "ffi":
      return new (require("./ffi.ts") as typeof Ffi).FfiMatcher();
    case "js":
    case "bun":
      return new JsMatcher();
    default:
      throw new Error(`unknown router engine ${JSON.stringify(engine)} (expected "bun", "ffi" or "js")`);
  }
}
