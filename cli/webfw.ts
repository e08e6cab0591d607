#!/usr/bin/env bun
/**
 * The `webfw` command (package.json `bin`):
 *
 *   webfw app.ts [flags]           run an app, same flags as `bun app.ts [flags]`
 *   webfw --create [options]       scaffold a project
 *   webfw build app.ts -o app      one executable (bun build --compile)
 *   webfw --version | --help | --docs | --create-native-file NAME | --compile-native-path PATH
 *
 * A line that runs an app (one app file that exists, flags the strict parser accepts, no one-shot
 * action) runs it in this process as the main module, with nothing else loaded: citty, the
 * subcommands and the actions load only for the other lines (cli/commands.ts), and neither
 * `node:fs` nor `node:path` is imported here, because the app's process would keep them
 * (+3.5 MB and +2.1 MB of idle RSS; docs/cli.md, "One process").
 */
import { parseFlags, wantsOneShotAction, withoutPositionals } from "../src/launch/flags.ts";

/** `/…`, `\…` or `C:\…`: a path that needs no working directory (by character: no regular expression). */
function isAbsolutePath(path: string): boolean {
  const first = path.charCodeAt(0);
  if (first === 0x2f || first === 0x5c) return true;
  const colon = path.charCodeAt(1) === 0x3a;
  const separator = path.charCodeAt(2) === 0x2f || path.charCodeAt(2) === 0x5c;
  return colon && separator && (first | 0x20) >= 0x61 && (first | 0x20) <= 0x7a;
}

/**
 * The app's module when the line only runs an app, as Bun resolves it (symlinks followed: what the
 * app's `import.meta.path` will be), else null: the full command (cli/commands.ts) then reads the
 * line again and reports what is wrong with it, as it always has.
 */
async function appToRun(rawArgs: string[]): Promise<string | null> {
  if (rawArgs[0] === "build") return null;
  let flags: ReturnType<typeof parseFlags>;
  try {
    flags = parseFlags(rawArgs, process.env);
  } catch {
    return null;
  }
  if (wantsOneShotAction(flags) || flags.positionals.length !== 1) return null;
  const given = flags.positionals[0] as string;
  const path = isAbsolutePath(given) ? given : `${process.cwd()}/${given}`;
  // A file: `exists()` is false for a folder (which Bun would resolve to its index file).
  if (!(await Bun.file(path).exists())) return null;
  try {
    return Bun.resolveSync(path, process.cwd());
  } catch {
    return null;
  }
}

/**
 * Makes `app` the program's main module: `Bun.main` names it, so its `import.meta.main` (and a
 * CommonJS app's `require.main === module`) is true and `app.start()` reads the flags, exactly as
 * under `bun app.ts`. False where this Bun does not let `Bun.main` be set.
 */
function becomeMain(app: string, flagArgs: string[]): boolean {
  try {
    (Bun as { main: string }).main = app;
  } catch {
    return false;
  }
  if (Bun.main !== app) return false;
  // `process.argv` is `Bun.argv`: the app sees `bun app.ts [flags]`, and `--processes`/`--dev`
  // re-run `argv[0] argv[1]` for their children.
  process.argv.splice(1, process.argv.length - 1, app, ...flagArgs);
  return true;
}

/**
 * Runs the app as `bun app.ts [flags]` in a new program: this process becomes it
 * (`process.execve`), or where `execve` is missing (Windows), a child process, with signals
 * forwarded and its exit code kept. The way when `Bun.main` cannot name the app.
 */
async function runAppProgram(app: string, flagArgs: string[]): Promise<number> {
  if (typeof process.execve === "function")
    process.execve(process.execPath, [process.execPath, app, ...flagArgs], { ...process.env });
  const child = Bun.spawn([process.execPath, app, ...flagArgs], { stdio: ["inherit", "inherit", "inherit"] });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  const code = await child.exited;
  process.off("SIGINT", forward);
  process.off("SIGTERM", forward);
  if (child.signalCode) {
    const { constants } = await import("node:os");
    const number = constants.signals[child.signalCode as keyof typeof constants.signals];
    return 128 + (number ?? 1);
  }
  return code;
}

const rawArgs = process.argv.slice(2);
const app = await appToRun(rawArgs);
if (app === null) await (await import("./commands.ts")).runCommand(rawArgs, runAppProgram);
else {
  const flagArgs = withoutPositionals(rawArgs);
  // By path, not a file URL: making the URL would keep the URL machinery in the app's process.
  if (becomeMain(app, flagArgs)) await import(app);
  else process.exit(await runAppProgram(app, flagArgs));
}
