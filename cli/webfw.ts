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
 * action) becomes `bun app.ts …` at once: citty, the subcommands and the actions load only for the
 * other lines (cli/commands.ts). They cost `webfw app.ts` ~15 ms of CPU before the app started
 * (docs/cli.md, "One process").
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { parseFlags, wantsOneShotAction, withoutPositionals } from "../src/launch/flags.ts";

/**
 * Runs the app as `bun app.ts [flags]`: the app sees its flags in
 * `process.argv` and `import.meta.main` is true, exactly as when it is started
 * directly. This process becomes the app (`process.execve`): no second `bun`
 * stays behind to wait for it (it idled at ~38 MB, more than a one-route app),
 * and signals and the exit code are the app's own (docs/cli.md, "One process").
 * Where `execve` is missing (Windows), a child process, with signals forwarded
 * and its exit code kept.
 */
async function runApp(app: string, flagArgs: string[]): Promise<number> {
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

/**
 * The app file when the line only runs an app, else null: the full command (cli/commands.ts) then
 * reads the line again and reports what is wrong with it, as it always has.
 */
function appToRun(rawArgs: string[]): string | null {
  if (rawArgs[0] === "build") return null;
  let flags: ReturnType<typeof parseFlags>;
  try {
    flags = parseFlags(rawArgs, process.env);
  } catch {
    return null;
  }
  if (wantsOneShotAction(flags) || flags.positionals.length !== 1) return null;
  const path = resolve(flags.positionals[0] as string);
  return existsSync(path) && statSync(path).isFile() ? path : null;
}

const rawArgs = process.argv.slice(2);
const app = appToRun(rawArgs);
if (app !== null) process.exit(await runApp(app, withoutPositionals(rawArgs)));
await (await import("./commands.ts")).runCommand(rawArgs, runApp);
