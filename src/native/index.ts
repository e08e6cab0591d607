/** Native extensions: compile C, Rust and Zig sources and call them through bun:ffi. */
export { cacheDirFor, isEmbedded } from "./cache.ts";
export {
  type CCompilerChoice,
  type CompiledNative,
  type CompileOptions,
  type CompileReport,
  compileNativeFile,
  compileNativePath,
  describeReport,
  languageOf,
  NativeCompileError,
  type NativeCompiler,
  type NativeLanguage,
  systemCCompiler,
} from "./compile.ts";
export {
  type CreatedNative,
  CreateNativeError,
  type CreateNativeOptions,
  createNativeFile,
} from "./create.ts";
export { type LoadNativeOptions, loadNative, type NativeSymbols } from "./load.ts";
