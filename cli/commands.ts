/**
 * The `webfw` command's subcommands and one-shot actions, through citty (cli/webfw.ts loads this
 * module only when the command line does not simply run an app: `webfw build`, `--help`,
 * `--version`, `--create`, `--docs`, `--create-native-file`, `--compile-native-path` alone, and the
 * command's mistakes). citty gives the command structure; the flags come from the shared table in
 * src/launch/flags.ts and are validated by its strict parser (citty's own parser accepts unknown
 * flags, and bad values must exit 2).
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { type ArgsDef, defineCommand, runMain } from "citty";
import { runCompileNative, runOneShotAction } from "../src/launch/actions.ts";
import { buildBinary, buildUsage, parseBuildArgs } from "../src/launch/build.ts";
import { FLAG_DEFS } from "../src/launch/flag-table.ts";
import { FlagError, parseFlags, usage, withoutPositionals } from "../src/launch/flags.ts";
import { reportFlagError } from "../src/launch/prepare-start.ts";
import { VERSION } from "../src/launch/version.ts";

/** Runs the app the command line names as its own program (cli/webfw.ts); returns its exit code. */
export type RunApp = (app: string, flagArgs: string[]) => Promise<number>;

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

async function runRoot(rawArgs: string[], runApp: RunApp): Promise<number> {
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

/** The whole command line, through citty. */
export async function runCommand(rawArgs: string[], runApp: RunApp): Promise<void> {
  const main = defineCommand({
    meta: { name: "webfw", version: VERSION, description: "Run, create and build webfw apps" },
    args: cittyArgs(),
    async run({ rawArgs: args }) {
      process.exit(await runRoot(args, runApp));
    },
  });
  const printer = (text: () => string) => async () => {
    process.stdout.write(`${text()}\n`);
  };
  // `build` is dispatched by hand: citty would take any first positional (the app
  // file) for a sub-command name, and `webfw app.ts` must keep working.
  if (rawArgs[0] === "build")
    await runMain(build, { rawArgs: rawArgs.slice(1), showUsage: printer(buildUsage) });
  else await runMain(main, { rawArgs, showUsage: printer(usage) });
}
