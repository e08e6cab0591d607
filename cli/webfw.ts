#!/usr/bin/env bun
/**
 * The `webfw` command (package.json `bin`):
 *
 *   webfw app.ts [flags]           run an app, same flags as `bun app.ts [flags]`
 *   webfw --create [options]       scaffold a project
 *   webfw build app.ts -o app      one executable (bun build --compile)
 *   webfw --version | --help | --docs | --create-native-file NAME | --compile-native-path PATH
 *
 * citty gives the command structure; the flags come from the shared table in
 * src/launch/flags.ts and are validated by its strict parser (citty's own parser
 * accepts unknown flags, and bad values must exit 2).
 */
import { existsSync, statSync } from "node:fs";
import { constants } from "node:os";
import { resolve } from "node:path";
import { type ArgsDef, defineCommand, runMain } from "citty";
import { runCompileNative, runOneShotAction } from "../src/launch/actions.ts";
import { buildBinary, buildUsage, parseBuildArgs } from "../src/launch/build.ts";
import { FLAG_DEFS } from "../src/launch/flag-table.ts";
import { FlagError, parseFlags, usage, withoutPositionals } from "../src/launch/flags.ts";
import { reportFlagError } from "../src/launch/prepare-start.ts";
import { VERSION } from "../src/launch/version.ts";

/** citty's view of the shared flag table (used for its metadata; validation is ours). */
function cittyArgs(): ArgsDef {
  const args: ArgsDef = {
    app: { type: "positional", required: false, description: "The app file to run (it calls app.start())" },
  };
  for (const def of FLAG_DEFS) {
    args[def.name] =
      def.kind === "boolean"
        ? { type: "boolean", description: def.description, alias: [...(def.aliases ?? [])] }
        : {
            type: "string",
            description: def.description,
            alias: [...(def.aliases ?? [])],
            valueHint: def.valueHint,
          };
  }
  return args;
}

function fail(error: FlagError): number {
  reportFlagError(error);
  return 2;
}

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
    const number = constants.signals[child.signalCode as keyof typeof constants.signals];
    return 128 + (number ?? 1);
  }
  return code;
}

async function runRoot(rawArgs: string[]): Promise<number> {
  let flags: ReturnType<typeof parseFlags>;
  try {
    flags = parseFlags(rawArgs, process.env);
  } catch (error) {
    if (error instanceof FlagError) return fail(error);
    throw error;
  }
  const action = await runOneShotAction(flags);
  if (action !== undefined) return action;

  const [app, extra] = flags.positionals;
  if (extra !== undefined) return fail(new FlagError(`unexpected argument "${extra}" (one app file only)`));
  if (app === undefined) {
    if (flags.compileNativePath !== undefined) return await runCompileNative(flags.compileNativePath);
    return fail(new FlagError("missing the app file: webfw app.ts [flags]"));
  }
  const path = resolve(app);
  if (!existsSync(path) || !statSync(path).isFile()) return fail(new FlagError(`app file not found: ${app}`));
  return runApp(path, withoutPositionals(rawArgs));
}

const build = defineCommand({
  meta: { name: "build", description: "Compile an app into one executable (bun build --compile)" },
  args: {
    app: { type: "positional", required: false, description: "The app file" },
    outfile: { type: "string", alias: ["o"], description: "Output file", valueHint: "FILE" },
    minify: { type: "boolean", description: "Minify the bundled code" },
    sourcemap: { type: "boolean", description: "Embed a source map" },
    bytecode: { type: "boolean", description: "Precompiled bytecode (on; --no-bytecode leaves it out)" },
    target: {
      type: "string",
      description: "Cross-compile target, e.g. bun-linux-arm64",
      valueHint: "TARGET",
    },
    help: { type: "boolean", alias: ["h"], description: "Show this help" },
  },
  async run({ rawArgs }) {
    let options: ReturnType<typeof parseBuildArgs>;
    try {
      options = parseBuildArgs(rawArgs);
    } catch (error) {
      if (error instanceof FlagError) {
        process.stderr.write(`webfw build: ${error.message}\n\n${buildUsage()}\n`);
        process.exit(2);
      }
      throw error;
    }
    if (options === "help") {
      process.stdout.write(`${buildUsage()}\n`);
      process.exit(0);
    }
    process.exit(await buildBinary(options));
  },
});

const main = defineCommand({
  meta: { name: "webfw", version: VERSION, description: "Run, create and build webfw apps" },
  args: cittyArgs(),
  async run({ rawArgs }) {
    process.exit(await runRoot(rawArgs));
  },
});

// `build` is dispatched by hand: citty would take any first positional (the app
// file) for a sub-command name, and `webfw app.ts` must keep working.
const rawArgs = process.argv.slice(2);
const printer = (text: () => string) => async () => {
  process.stdout.write(`${text()}\n`);
};
if (rawArgs[0] === "build")
  await runMain(build, { rawArgs: rawArgs.slice(1), showUsage: printer(buildUsage) });
else await runMain(main, { rawArgs, showUsage: printer(usage) });
