/** `webfw build app.ts --outfile app`: one executable with `bun build --compile`. */
import { existsSync, realpathSync, rmSync } from "node:fs";
import { basename, dirname, extname, relative, resolve, sep } from "node:path";
import { BUILT, frameworkCodeDir, layoutPath, packageRoot } from "../package-layout.ts";
import { discoverDirectories, mainThreadGuard, planEmbedding } from "./embed.ts";
import { FlagError } from "./flags.ts";
import { builtPackageRequires, type LazyChunks, readLazyChunks } from "./lazy-chunks.ts";

/** A framework module that is loaded by path at run time (not imported), so the bundler cannot find it. */
export interface ExtraEntrypoint {
  /** Path inside the webfw package's sources (`src/…`; src/package-layout.ts maps it to the built copy). */
  path: string;
  /**
   * An expression replaced at build time (`bun build --define`) by the module's
   * path inside the executable, so the code that loads it can find it there.
   */
  define?: string;
}

/**
 * Passed to `bun build --compile` after the app. Missing files are skipped.
 * The worker pool loads `process.env.WEBFW_WORKER_ENTRY ?? new URL("./worker-entry.ts", import.meta.url)`:
 * in a compiled binary the first is the embedded entry. Add new ones here.
 */
export const BUILD_EXTRA_ENTRYPOINTS: readonly ExtraEntrypoint[] = [
  { path: "src/workers/worker-entry.ts", define: "process.env.WEBFW_WORKER_ENTRY" },
];

export interface BuildOptions {
  entry: string;
  outfile: string;
  minify: boolean;
  sourcemap: boolean;
  /**
   * JavaScriptCore bytecode compiled into the executable (`bun build --bytecode`, ES modules): it
   * starts without parsing its code, about twice as soon for a one-route app (docs/cli.md). On
   * unless `--no-bytecode`.
   */
  bytecode: boolean;
  /** A `bun build --target`, e.g. `bun-linux-x64` or `bun-linux-arm64-musl`, to cross-compile. */
  target?: string;
  /**
   * The tsconfig.json the build reads in place of the ones it would find (`paths` above all), as
   * `bun build --tsconfig-override` does; absolute.
   */
  tsconfig?: string;
}

/** Parses the arguments after `build`. Throws `FlagError`. */
export function parseBuildArgs(argv: readonly string[], cwd = process.cwd()): BuildOptions | "help" {
  let entry: string | undefined;
  let outfile: string | undefined;
  let target: string | undefined;
  let tsconfig: string | undefined;
  let minify = false;
  let sourcemap = false;
  let bytecode = true;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq !== -1 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith("--") && eq !== -1 ? arg.slice(eq + 1) : undefined;
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "" || (inline === undefined && v.startsWith("-"))) {
        throw new FlagError(`${name} needs a value`);
      }
      return v;
    };
    switch (name) {
      case "-h":
      case "--help":
        return "help";
      case "--outfile":
      case "-o":
        outfile = value();
        break;
      case "--target":
        target = value();
        if (!/^bun(-[a-z0-9]+)*$/.test(target)) {
          throw new FlagError(`--target must look like bun-linux-x64 or bun-darwin-arm64, got "${target}"`);
        }
        break;
      case "--tsconfig":
        tsconfig = resolve(cwd, value());
        if (!existsSync(tsconfig)) throw new FlagError(`--tsconfig: file not found: ${tsconfig}`);
        break;
      case "--minify":
        if (inline !== undefined) throw new FlagError("--minify takes no value");
        minify = true;
        break;
      case "--sourcemap":
        if (inline !== undefined) throw new FlagError("--sourcemap takes no value");
        sourcemap = true;
        break;
      case "--bytecode":
      case "--no-bytecode":
        if (inline !== undefined) throw new FlagError(`${name} takes no value`);
        bytecode = name === "--bytecode";
        break;
      default:
        if (arg.startsWith("-")) throw new FlagError(`unknown flag for webfw build: ${name}`);
        if (entry !== undefined)
          throw new FlagError(`webfw build takes one app file, got "${entry}" and "${arg}"`);
        entry = arg;
    }
  }
  if (entry === undefined)
    throw new FlagError("webfw build needs the app file: webfw build app.ts --outfile app");
  const absoluteEntry = resolve(cwd, entry);
  if (!existsSync(absoluteEntry)) throw new FlagError(`app file not found: ${entry}`);
  return {
    entry: absoluteEntry,
    outfile: resolve(cwd, outfile ?? basename(entry, extname(entry))),
    minify,
    sourcemap,
    bytecode,
    target,
    ...(tsconfig ? { tsconfig } : {}),
  };
}

export function buildUsage(): string {
  return [
    "Usage: webfw build <app.ts> [--outfile FILE] [--minify] [--sourcemap] [--no-bytecode] [--target TARGET] [--tsconfig FILE]",
    "",
    "Compiles the app, webfw and Bun into one executable (bun build --compile),",
    "including the worker entry and embedded native sources. The executable takes",
    "the same flags as `bun app.ts` (--port, --processes, --workers, ...).",
    "",
    "  -o, --outfile FILE   output file [default: the app file's name without extension]",
    "  --minify             minify the bundled code",
    "  --sourcemap          embed a source map (readable stack traces)",
    "  --no-bytecode        leave out the precompiled bytecode (smaller file, slower start)",
    "  --target TARGET      cross-compile, e.g. bun-linux-arm64, bun-linux-x64-musl",
    "  --tsconfig FILE      read this tsconfig.json instead of the app's (its `paths`)",
  ].join("\n");
}

/** The extra entrypoints that exist in this installation, as absolute paths. */
export function extraEntrypoints(root = packageRoot()): string[] {
  return existingExtras(root).map((e) => e.absolute);
}

function existingExtras(root: string): { absolute: string; define?: string }[] {
  // The package's built copy (dist/…) when webfw runs from it: the app imports the built
  // package, so the worker entry must share its modules (docs/packaging.md).
  return BUILD_EXTRA_ENTRYPOINTS.map((e) => ({
    absolute: resolve(root, layoutPath(e.path)),
    define: e.define,
  })).filter((e) => existsSync(e.absolute));
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Where `bun build --compile` puts `file` inside the executable: below the
 * embedded root, at its path relative to the deepest folder that holds every
 * entrypoint (Bun's rule for several entrypoints).
 */
export function embeddedPath(entrypoints: readonly string[], file: string, target?: string): string {
  const dirs = entrypoints.map((p) => dirname(real(p)).split(sep));
  const common: string[] = [];
  for (let i = 0; dirs.every((d) => i < d.length && d[i] === dirs[0]![i]); i++) common.push(dirs[0]![i]!);
  const relativePath = relative(common.join(sep) || sep, real(file))
    .split(sep)
    .join("/");
  const prefix = target?.includes("windows") ? "B:/~BUN/root/" : "/$bunfs/root/";
  return prefix + relativePath;
}

/** The `bun build` command line (the app file comes first: it is the executable's main module). */
export function buildCommand(options: BuildOptions, bun = process.execPath, root = packageRoot()): string[] {
  const extras = existingExtras(root);
  const entrypoints = [options.entry, ...extras.map((e) => e.absolute)];
  const command = [bun, "build", "--compile", "--splitting", ...entrypoints, "--outfile", options.outfile];
  for (const extra of extras) {
    if (!extra.define) continue;
    const embedded = embeddedPath(entrypoints, extra.absolute, options.target);
    command.push("--define", `${extra.define}=${JSON.stringify(embedded)}`);
  }
  if (options.minify) command.push("--minify");
  if (options.sourcemap) command.push("--sourcemap");
  if (options.bytecode) command.push("--bytecode", "--format", "esm");
  if (options.target) command.push("--target", options.target);
  if (options.tsconfig) command.push("--tsconfig-override", options.tsconfig);
  return command;
}

/**
 * Runs the build: what `buildCommand` describes, through `Bun.build` so that what the command
 * line cannot do is added (src/launch/embed.ts): the directories the app names are embedded (or
 * reported when they cannot be), the app's `import.meta.main` is guarded so Worker threads never
 * run its start block, and, from the built package, the chunks its build listed as lazily
 * required are embedded (src/launch/lazy-chunks.ts). Resolves the exit code.
 */
export async function buildBinary(options: BuildOptions, root = packageRoot()): Promise<number> {
  const extras = existingExtras(root);
  const entrypoints = [options.entry, ...extras.map((e) => e.absolute)];
  // The built package's lazily required chunks, listed by its build (src/launch/lazy-chunks.ts).
  const distDir = real(frameworkCodeDir());
  let lazyChunks: LazyChunks | null = null;
  if (BUILT) {
    try {
      lazyChunks = readLazyChunks(distDir);
    } catch (error) {
      process.stderr.write(`webfw build: ${(error as Error).message}\n`);
      return 1;
    }
  }
  const found = await discoverDirectories(options.entry, process.execPath, options.tsconfig);
  if (found.error) {
    process.stderr.write(
      `webfw build: could not list the app's directories (importing it failed); none are embedded:\n${found.error}\n`,
    );
  }
  // Bun's root is the app's folder: the app's `import.meta.dir` inside the executable is
  // `/$bunfs/root/`, so its directories must be embedded relative to that folder.
  const appRoot = dirname(real(options.entry));
  const plan = planEmbedding(options.entry, found.directories);
  for (const { directory, users, files } of plan.embedded)
    process.stdout.write(`webfw build: embedding ${directory} (${users.join(", ")}): ${files} files\n`);
  for (const { directory, reason } of plan.skipped)
    process.stderr.write(`webfw build: NOT embedding ${directory}: ${reason}\n`);
  const define: Record<string, string> = {};
  for (const extra of extras) {
    if (extra.define)
      define[extra.define] = JSON.stringify(
        (options.target?.includes("windows") ? "B:/~BUN/root/" : "/$bunfs/root/") +
          relative(appRoot, real(extra.absolute)).split(sep).join("/"),
      );
  }
  try {
    const result = await Bun.build({
      entrypoints: plan.module ? [...entrypoints, plan.module] : entrypoints,
      root: appRoot,
      // Lazily loaded modules stay chunks of their own inside the executable, loaded on first use
      // (docs/cli.md): one bundle would hoist their imports to its top and load them all at start.
      splitting: true,
      compile: {
        outfile: options.outfile,
        ...(options.target ? { target: options.target as Bun.Build.CompileTarget } : {}),
      },
      define,
      ...(options.tsconfig ? { tsconfig: options.tsconfig } : {}),
      minify: options.minify,
      // ES modules, not Bun's default CommonJS for bytecode: apps and webfw use top-level `await`.
      ...(options.bytecode ? { bytecode: true, format: "esm" } : {}),
      sourcemap: options.sourcemap ? "inline" : "none",
      naming: { asset: "[dir]/[name].[ext]" },
      plugins: [
        mainThreadGuard(options.entry),
        ...(lazyChunks ? [builtPackageRequires(distDir, lazyChunks)] : []),
      ],
      throw: false,
    } as Bun.BuildConfig);
    if (!result.success) {
      for (const log of result.logs) process.stderr.write(`${String(log)}\n`);
      return 1;
    }
    // With `--sourcemap` Bun also writes every module's map beside the executable (one per chunk
    // with splitting); the executable carries them itself (its stack traces read the sources), so
    // these copies are left-overs in the user's folder.
    for (const output of result.outputs)
      if (output.kind === "sourcemap") rmSync(output.path, { force: true });
  } finally {
    plan.cleanup();
  }
  process.stdout.write(`webfw build: wrote ${options.outfile}\n`);
  return 0;
}
