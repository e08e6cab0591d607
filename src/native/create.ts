/** `--create-native-file NAME`: a native source with one exported function and its TypeScript binding. */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, resolve } from "node:path";
import type { NativeLanguage } from "./compile.ts";

export interface CreateNativeOptions {
  /** Base directory for a relative NAME (default: the working directory). */
  cwd?: string;
  /** Module the binding imports `loadNative` from (default `webfw`). */
  importFrom?: string;
}

export interface CreatedNative {
  /** The C, Rust or Zig file. */
  source: string;
  /** The TypeScript file exporting the typed function. */
  binding: string;
  functionName: string;
  language: NativeLanguage;
}

/** Refused: a bad name, or a file that already exists. The message is for the user. */
export class CreateNativeError extends Error {
  /** 2 for a bad NAME (a bad flag value), 1 when a file already exists. */
  readonly exitCode: number;

  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = "CreateNativeError";
    this.exitCode = exitCode;
  }
}

const EXTENSIONS: Record<string, NativeLanguage> = { "": "c", ".c": "c", ".rs": "rust", ".zig": "zig" };
const FILE_EXT: Record<NativeLanguage, string> = { c: ".c", rust: ".rs", zig: ".zig" };
// Keywords of C, Rust and Zig: the name must be a valid function name in all three.
const RESERVED = new Set([
  ...["auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum"],
  ...["extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return"],
  ...["short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void"],
  ...["volatile", "while", "fn", "pub", "mod", "use", "let", "mut", "impl", "trait", "self", "export"],
  ...["loop", "match", "type", "true", "false"],
]);

/**
 * Writes `NAME.c` (or `NAME.rs` / `NAME.zig` when NAME ends so) exporting one
 * function `int NAME(int a, int b)`, and `NAME.ts` binding it with `loadNative`.
 * NAME may include folders (`native/add`); its last part must be a C identifier,
 * since it becomes the function's name. Existing files are never overwritten.
 */
export function createNativeFile(name: string, options: CreateNativeOptions = {}): CreatedNative {
  const ext = extname(name).toLowerCase();
  const language = EXTENSIONS[ext];
  if (!language) {
    throw new CreateNativeError(`native file extension must be .c, .rs or .zig, got "${ext}"`);
  }
  const stemPath = ext ? name.slice(0, -ext.length) : name;
  const functionName = basename(stemPath);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(functionName) || RESERVED.has(functionName)) {
    throw new CreateNativeError(
      `"${functionName}" cannot name a native function: use letters, digits and _ (not starting with a digit, not a keyword)`,
    );
  }
  const base = resolve(options.cwd ?? process.cwd(), stemPath);
  const source = base + FILE_EXT[language];
  const binding = `${base}.ts`;
  for (const file of [source, binding]) {
    if (existsSync(file)) throw new CreateNativeError(`${file} already exists; not overwriting it`, 1);
  }
  mkdirSync(dirname(base), { recursive: true });
  writeFileSync(source, SOURCES[language](functionName));
  writeFileSync(
    binding,
    bindingSource(functionName, basename(source), language, options.importFrom ?? "webfw"),
  );
  return { source, binding, functionName, language };
}

const SOURCES: Record<NativeLanguage, (fn: string) => string> = {
  c: (fn) => `/*
 * ${fn}.c: a native function for a webfw app, bound in ${fn}.ts.
 * loadNative() compiles it with \`cc -O2 -shared -fPIC\` when a C compiler is
 * installed, else with TinyCC inside Bun. It includes no system headers, so both
 * compilers accept it; keep it that way or make sure a C compiler is present.
 */
#if defined(_WIN32)
#define WEBFW_EXPORT __declspec(dllexport)
#else
#define WEBFW_EXPORT __attribute__((visibility("default")))
#endif

/* Adds two 32-bit integers. When you change the signature, change ${fn}.ts too. */
WEBFW_EXPORT int ${fn}(int a, int b) {
  return a + b;
}
`,
  rust: (fn) => `// ${fn}.rs: a native function for a webfw app, bound in ${fn}.ts.
// loadNative() compiles it with \`rustc --crate-type cdylib -O\`.

/// Adds two 32-bit integers. When you change the signature, change ${fn}.ts too.
#[no_mangle]
pub extern "C" fn ${fn}(a: i32, b: i32) -> i32 {
    a.wrapping_add(b)
}
`,
  zig: (fn) => `// ${fn}.zig: a native function for a webfw app, bound in ${fn}.ts.
// loadNative() compiles it with \`zig build-lib -dynamic -O ReleaseFast\`.

/// Adds two 32-bit integers. When you change the signature, change ${fn}.ts too.
export fn ${fn}(a: i32, b: i32) i32 {
    return a +% b;
}
`,
};

function bindingSource(fn: string, file: string, language: NativeLanguage, importFrom: string): string {
  const compiler = language === "c" ? "C" : language === "rust" ? "Rust" : "Zig";
  return `// Typed binding for ${file}. Keep \`args\` and \`returns\` in step with the ${compiler}
// signature (bun:ffi types: i32, u32, i64, u64, f32, f64, bool, ptr, cstring, ...).
import { loadNative } from ${JSON.stringify(importFrom)};
// This import gives the source's path, and embeds the file in \`bun build --compile\` binaries.
// @ts-ignore: TypeScript has no module type for .${file.split(".").pop()} files
import source from ${JSON.stringify(`./${file}`)} with { type: "file" };

export const { ${fn} } = loadNative(source, {
  ${fn}: { args: ["i32", "i32"], returns: "i32" },
});
`;
}
