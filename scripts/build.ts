/**
 * Builds what the package ships (docs/packaging.md): `dist/`, one `bun build` of every package
 * export, the `webfw` command and the worker pool's entry, split into shared chunks so that an app
 * and the command (and a Worker) load ONE copy of each framework module: two copies would give two
 * app registries, two `Request` classes, two worker modes. Dynamic `import()`s stay lazy chunks;
 * dependencies stay imports of the user's node_modules (`packages: "external"`), so a dependency
 * the app imports too (`@opentelemetry/api`, `zod`) is one instance. Then the declaration files
 * (`tsc -p tsconfig.types.json`, into dist/types).
 *
 *   bun scripts/build.ts                  # dist/ (run by `prepare` on install and before `npm pack`)
 *   bun scripts/build.ts --no-types       # the bundle only
 *   bun scripts/build.ts --outdir /tmp/x  # elsewhere (bench/bundled-start.ts compares builds)
 *   bun scripts/build.ts --minify none|syntax|all
 */
import { existsSync, rmSync } from "node:fs";
import { isBuiltin } from "node:module";
import { join, posix } from "node:path";
import { parseArgs } from "node:util";
import { LAZY_CHUNKS_FILE, type LazyChunks, listedCalls } from "../src/launch/lazy-chunks.ts";

const ROOT = join(import.meta.dir, "..");

/**
 * The sources of what `exports` and `bin` point at (`./dist/src/index.js` is built from
 * `src/index.ts`), plus the worker pool's entry, which the pool loads by path.
 */
export async function entrypoints(root = ROOT): Promise<string[]> {
  const pkg = (await Bun.file(join(root, "package.json")).json()) as {
    exports: Record<string, string | { default?: string }>;
    bin: Record<string, string>;
  };
  const built = [
    ...Object.values(pkg.exports).map((target) => (typeof target === "object" ? target.default : undefined)),
    ...Object.values(pkg.bin),
    WORKER_ENTRY_BUILT,
  ].filter((file): file is string => typeof file === "string" && /^(\.\/)?dist\//.test(file));
  return [...new Set(built)].map((file) =>
    join(root, file.replace(/^(\.\/)?dist\//, "").replace(/\.js$/, ".ts")),
  );
}

/** Where the worker pool's entry lands (src/workers/pool.ts looks for it there). */
const WORKER_ENTRY_BUILT = "dist/src/workers/worker-entry.js";

/**
 * How much minification: `syntax` (the default) folds constants and drops whitespace but keeps every
 * identifier, so class and function names (`error.name`, stack traces, `fn.name`) read as in src/.
 */
function minifyOption(mode: string): Bun.BuildConfig["minify"] {
  if (mode === "none") return false;
  if (mode === "syntax") return { whitespace: true, syntax: true, identifiers: false, keepNames: true };
  if (mode === "all") return { whitespace: true, syntax: true, identifiers: true, keepNames: true };
  throw new Error(`--minify takes none, syntax or all, got "${mode}"`);
}

/**
 * The C router's sources (`import … from "../../native/router.c" with { type: "file" }`) stay
 * imports, by the package's own name: Bun would copy them beside the chunks and leave a path
 * relative to the chunk, which the loader would read relative to the working directory. Through
 * `webfw/native/router.c` (package.json `exports`) Bun resolves the shipped native/ folder at run
 * time, and a `webfw build` of the app embeds the file as it embeds any `type: "file"` import.
 */
const nativeSourcesByPackagePath: Bun.BunPlugin = {
  name: "webfw-native-sources",
  setup(build) {
    build.onResolve({ filter: /\/native\/router\.[ch]$/ }, (args) => ({
      path: `webfw/native/${args.path.slice(args.path.lastIndexOf("/") + 1)}`,
      external: true,
    }));
  },
};

export async function buildBundle(outdir: string, minify = "syntax", root = ROOT): Promise<void> {
  rmSync(join(outdir, "src"), { recursive: true, force: true });
  rmSync(join(outdir, "cli"), { recursive: true, force: true });
  rmSync(join(outdir, "chunks"), { recursive: true, force: true });
  rmSync(join(outdir, "native"), { recursive: true, force: true });
  rmSync(join(outdir, LAZY_CHUNKS_FILE), { force: true });
  const entries = await entrypoints(root);
  const options = {
    entrypoints: entries,
    root,
    target: "bun",
    format: "esm",
    splitting: true,
    packages: "external",
    minify: minifyOption(minify),
    // The code tells the source layout from the built one by this (src/package-layout.ts).
    define: { "process.env.WEBFW_BUILT_LAYOUT": JSON.stringify("dist") },
    // Entries keep their place (dist/src/index.js, dist/cli/webfw.js).
    naming: { entry: "[dir]/[name].[ext]", chunk: "chunks/[name]-[hash].[ext]" },
    throw: false,
  } satisfies Bun.BuildConfig;
  const tied = tiedToCore(
    await lazyRoots({ ...options, plugins: [nativeSourcesByPackagePath] }, root),
    entries,
    root,
  );
  const result = await Bun.build({
    ...options,
    outdir,
    plugins: [nativeSourcesByPackagePath, importingTheCore(tied, root)],
    // Which output requires which chunk lazily: the list `webfw build` embeds them by.
    metafile: true,
  });
  if (!result.success) throw new AggregateError(result.logs, "bun build failed");
  if (!result.metafile) throw new Error("bun build returned no metafile");
  const lazy = lazyChunks(result.metafile);
  await checkLazyChunks(outdir, lazy);
  await Bun.write(join(outdir, LAZY_CHUNKS_FILE), `${JSON.stringify(lazy, null, 2)}\n`);
  for (const output of result.outputs)
    if (output.kind === "entry-point") await restoreExportedNames(output.path);
}

/**
 * One chunk for the code an app loads at start (docs/packaging.md, "One chunk at start"). Bun splits
 * by the set of entry points (and `import()`/lazy `require()` targets, which are entry points of
 * their own) that reach each module: every lazy module reaching a different part of the core made
 * that part its own chunk, and `import "webfw"` opened 44 files. Each module costs the engine a
 * record, an environment and a link step whatever its size (docs/performance.md, "Issue 32, tenth
 * pass"). When every lazy module and every app-side entry also imports the root entry, every module
 * the root entry reaches has the same set, so they are one chunk. These entries stay apart: they
 * are used without an app (the typed client, the types, templates) or start before it (the
 * command's entry, 10 KB before it imports the app). The command's lazy modules (flag parser, help,
 * `cli/commands.ts`) are tied: kept apart they split the core again (docs/packaging.md).
 */
const STANDALONE_ENTRIES = [
  "src/index.ts",
  "src/client/index.ts",
  "src/types.ts",
  "src/templating/index.ts",
  "cli/webfw.ts",
];

/**
 * The targets of the sources' own `import()` and lazy `require()` calls, as Bun resolved them: the
 * metafile of a build that writes nothing (the same inputs `lazyChunks` reads below).
 */
async function lazyRoots(options: Bun.BuildConfig, root: string): Promise<Set<string>> {
  const result = await Bun.build({ ...options, metafile: true });
  if (!result.success) throw new AggregateError(result.logs, "bun build failed");
  if (!result.metafile) throw new Error("bun build returned no metafile");
  const roots = new Set<string>();
  for (const input of Object.values(result.metafile.inputs))
    for (const record of input.imports)
      if (
        (record.kind === "dynamic-import" || record.kind === "require-call") &&
        record.entryPoint !== undefined
      )
        roots.add(join(root, record.entryPoint));
  return roots;
}

/** The lazy modules and the app-side entries: each is built as if it imported the root entry too. */
function tiedToCore(roots: Set<string>, entries: string[], root: string): Set<string> {
  const apart = new Set(STANDALONE_ENTRIES.map((file) => join(root, file)));
  return new Set([...roots, ...entries].filter((file) => !apart.has(file)));
}

/** Prepends `import "<root>/src/index.ts"` to the modules `tiedToCore` lists (no source file changes). */
function importingTheCore(tied: Set<string>, root: string): Bun.BunPlugin {
  const core = JSON.stringify(join(root, "src/index.ts"));
  return {
    name: "webfw-one-core-chunk",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!tied.has(args.path)) return undefined;
        return { contents: `import ${core};\n${await Bun.file(args.path).text()}`, loader: "ts" };
      });
    },
  };
}

/**
 * The lazily required chunks and packages (src/launch/lazy-chunks.ts): every output's
 * `require-call` imports of other outputs, as the specifier its code passes to
 * `import.meta.require`, and the packages its inputs `require()` (external, not Node's built-ins).
 */
export function lazyChunks(metafile: Bun.BuildMetafile): LazyChunks {
  const requires: Record<string, string[]> = {};
  const packages: Record<string, string[]> = {};
  const clean = (path: string) => posix.normalize(path.split("\\").join("/")).replace(/^\.\//, "");
  for (const [outputPath, output] of Object.entries(metafile.outputs)) {
    const from = clean(outputPath);
    const specifiers = output.imports
      .filter((record) => record.kind === "require-call")
      .map((record) => {
        const specifier = posix.relative(posix.dirname(from), clean(record.path));
        return specifier.startsWith(".") ? specifier : `./${specifier}`;
      });
    if (specifiers.length > 0) requires[from] = [...new Set(specifiers)].sort();
    const names = Object.keys(output.inputs).flatMap((input) =>
      (metafile.inputs[input]?.imports ?? [])
        .filter((record) => record.kind === "require-call" && record.external === true)
        .map((record) => record.path)
        .filter((name) => !name.startsWith(".") && !name.startsWith("/") && !isBuiltin(name)),
    );
    if (names.length > 0) packages[from] = [...new Set(names)].sort();
  }
  return { requires, packages };
}

/** Fails the build when an output lacks a listed call (Bun wrote it in another form). */
async function checkLazyChunks(outdir: string, lazy: LazyChunks): Promise<void> {
  for (const file of new Set([...Object.keys(lazy.requires), ...Object.keys(lazy.packages)])) {
    const code = await Bun.file(join(outdir, file)).text();
    for (const { call, specifier } of listedCalls(lazy, file))
      if (!code.includes(call))
        throw new Error(
          `${file}: the metafile lists a lazy require of ${specifier}, but the code has no ${call}`,
        );
    for (const specifier of lazy.requires[file] ?? [])
      if (!existsSync(join(outdir, posix.dirname(file), specifier)))
        throw new Error(`${file}: the lazily required ${specifier} was not written`);
  }
}

/**
 * Splitting renames what crosses chunks (`class Request` becomes `Request2`, `t` becomes `t2`,
 * exported as `Request2 as Request`), and `Request.name` would read "Request2" (in
 * `console.log(request)`, `error.constructor.name`). Bun's `keepNames` does not cover these
 * renames (1.4.5), so each entry file gives its exported classes and functions their names back.
 */
export async function restoreExportedNames(file: string): Promise<void> {
  const text = await Bun.file(file).text();
  const clause = /export\{([^}]*)\};?\s*$/.exec(text)?.[1];
  if (clause === undefined) return;
  const fixes: string[] = [];
  for (const item of clause.split(",")) {
    const [local, exported] = item.trim().split(/\s+as\s+/);
    if (local === undefined || exported === undefined || !new RegExp(`^${exported}\\d+$`).test(local))
      continue;
    fixes.push(`${JSON.stringify(exported)}:${local}`);
  }
  if (fixes.length === 0) return;
  const restore = `for(const[n,v]of Object.entries({${fixes.join(",")}}))typeof v==="function"&&v.name!==n&&Object.defineProperty(v,"name",{value:n});`;
  await Bun.write(
    file,
    text.replace(/export\{[^}]*\};?\s*$/, (tail) => `${restore}${tail}`),
  );
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      outdir: { type: "string", default: join(ROOT, "dist") },
      types: { type: "boolean", default: true },
      "no-types": { type: "boolean", default: false },
      minify: { type: "string", default: "syntax" },
    },
  });
  const started = performance.now();
  await buildBundle(values.outdir, values.minify);
  if (values.types && !values["no-types"]) {
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    if (!existsSync(tsc)) throw new Error(`${tsc} is missing: run npm install`);
    const proc = Bun.spawnSync([process.execPath, tsc, "-p", join(ROOT, "tsconfig.types.json")], {
      stdout: "inherit",
      stderr: "inherit",
    });
    if (proc.exitCode !== 0) process.exit(proc.exitCode ?? 1);
  }
  console.log(`webfw: built ${values.outdir} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
