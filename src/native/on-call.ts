/**
 * `loadNative` as `webfw` exports it: the same function, but `bun:ffi`, the compilers and the cache
 * (src/native/load.ts) load on the first call, so that an app that never calls it does not load
 * them (idle memory, docs/performance.md). The folder's own index (src/native/index.ts) exports the
 * real one with everything else.
 */
import type { ConvertFns } from "bun:ffi";
import type * as Load from "./load.ts";
import type { LoadNativeOptions, NativeSymbols } from "./load.ts";

/**
 * Returns the typed functions of a native source (`.c`, `.rs`, `.zig`, compiled on demand into a
 * cache) or library (`.so`, `.dylib`, `.dll`): see src/native/load.ts and docs/native.md.
 */
export function loadNative<const Fns extends NativeSymbols>(
  path: string,
  symbols: Fns,
  options: LoadNativeOptions = {},
): ConvertFns<Fns> {
  return (require("./load.ts") as typeof Load).loadNative(path, symbols, options);
}
