/** `webfw/native`: C, Rust and Zig functions called through bun:ffi (docs/native.md). */
export type { CCompilerChoice, CompileOptions } from "../native/compile.ts";
export type { LoadNativeOptions, NativeSymbols } from "../native/load.ts";
export { loadNative } from "../native/on-call.ts";
