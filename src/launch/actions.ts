/**
 * Flags that do one thing and exit (help, version, docs, create, create a native
 * file), shared by `webfw` and `bun app.ts`, plus `--compile-native-path`. What only these actions
 * need (the scaffolder, the native compiler) is imported when one runs, so that a server started
 * without them never loads it (idle memory, docs/performance.md).
 */
import { type StartFlags, usage } from "./flags.ts";
import { openUrl } from "./open.ts";
import { docsUrl, VERSION } from "./version.ts";

type Env = Record<string, string | undefined>;

/**
 * Runs the first one-shot action the flags ask for and returns its exit code,
 * or undefined when there is none (the caller goes on to serve).
 */
export async function runOneShotAction(
  flags: StartFlags,
  env: Env = process.env,
): Promise<number | undefined> {
  if (flags.help) {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  if (flags.version) {
    process.stdout.write(`webfw ${VERSION}\n`);
    return 0;
  }
  if (flags.docs) {
    const url = docsUrl(env);
    const opened = openUrl(url, env);
    process.stdout.write(`webfw documentation: ${url}${opened ? " (opening in your browser)" : ""}\n`);
    return 0;
  }
  // The scaffolder and its templates load only for `--create` (idle memory of a server).
  if (flags.create) return (await import("./create.ts")).runCreate(flags.createOptions);
  if (flags.createNativeFile !== undefined) {
    const { CreateNativeError, createNativeFile } = await import("../native/create.ts");
    try {
      const created = createNativeFile(flags.createNativeFile);
      process.stdout.write(
        `Created ${created.source}\n    and ${created.binding} (exports ${created.functionName})\n`,
      );
      return 0;
    } catch (error) {
      if (error instanceof CreateNativeError) {
        process.stderr.write(`webfw --create-native-file: ${error.message}\n`);
        return error.exitCode;
      }
      throw error;
    }
  }
  return undefined;
}

/** `--compile-native-path PATH`: compiles, prints one line per file; returns 0, or 1 when any file failed. */
export async function runCompileNative(path: string): Promise<number> {
  const { compileNativePath, describeReport } = await import("../native/compile.ts");
  const report = compileNativePath(path);
  const lines = describeReport(report);
  if (lines.length === 0) lines.push(`no .c, .rs or .zig files in ${path}`);
  for (const line of lines) {
    (line.startsWith("error:") ? process.stderr : process.stdout).write(`${line}\n`);
  }
  return report.failed.length === 0 ? 0 : 1;
}
