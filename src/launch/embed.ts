/**
 * What `webfw build` adds to `bun build --compile` beyond the app and the worker entry:
 *
 * - the directories the app names with `serveDirectory` and `MustacheTemplate`, found by
 *   importing the app once without listening (src/embed/directories.ts) and embedded at
 *   the place the app computes at run time (`join(import.meta.dir, "templates")` inside
 *   the executable is below `/$bunfs/root/`, where Bun puts assets with `[dir]` naming);
 *   a directory that cannot be embedded there is reported, not silently left out;
 * - a guard on the app's `import.meta.main`: Bun makes it true in every thread of an
 *   executable, so without it each handler Worker would run the app's start block.
 */
import { readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { DISCOVER_ENV, type NamedDirectory } from "../embed/directories.ts";

export interface EmbedPlan {
  /** Directories embedded, with their file count. */
  embedded: { directory: string; users: string[]; files: number }[];
  /** Directories left on disk, and why. */
  skipped: { directory: string; reason: string }[];
  /** The generated module that imports every file as an asset (`null`: nothing to embed). */
  module: string | null;
  /** Removes the generated module. */
  cleanup(): void;
}

/**
 * Imports the app with `WEBFW_BUILD_DISCOVER` set and returns the directories it named (`tsconfig`:
 * the one the build reads, so the app imports what the executable will hold).
 */
export async function discoverDirectories(
  entry: string,
  bun = process.execPath,
  tsconfig?: string,
): Promise<{ directories: NamedDirectory[]; error: string | null }> {
  const report = join(dirname(entry), `.webfw-discover-${process.pid}.json`);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  env[DISCOVER_ENV] = report;
  const command = tsconfig ? [bun, "--tsconfig-override", tsconfig, entry] : [bun, entry];
  const proc = Bun.spawn(command, { cwd: dirname(entry), env, stdout: "ignore", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill(), 30_000);
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  try {
    const file = Bun.file(report);
    // No report and a clean exit: the app named no directory (the report is written only when one
    // is named), which is success with nothing to embed, not a failed import (issue 31).
    if (code === 0 && !(await file.exists())) return { directories: [], error: null };
    const directories = JSON.parse(await file.text()) as NamedDirectory[];
    return { directories, error: code === 0 ? null : lastLines(stderr) };
  } catch {
    return { directories: [], error: lastLines(stderr) || `the app exited with ${code}` };
  } finally {
    rmSync(report, { force: true });
  }
}

function lastLines(text: string): string {
  return text.trim().split("\n").slice(-5).join("\n");
}

function filesUnder(directory: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile() || (entry.isSymbolicLink() && statSync(path).isFile())) out.push(path);
  }
  return out;
}

/** Writes the asset module next to the app (so the embedded root does not move). */
export function planEmbedding(entry: string, directories: readonly NamedDirectory[]): EmbedPlan {
  // The build's root is the app's folder (src/launch/build.ts): `/$bunfs/root/` is `import.meta.dir`.
  const root = dirname(entry);
  const byPath = new Map<string, string[]>();
  for (const { path, user } of directories) byPath.set(path, [...(byPath.get(path) ?? []), user]);
  const plan: EmbedPlan = { embedded: [], skipped: [], module: null, cleanup: () => {} };
  const imports: string[] = [];
  for (const [directory, users] of byPath) {
    const inside = relative(root, directory);
    if (inside.startsWith("..") || inside.startsWith(sep) || directory.startsWith("/$bunfs/")) {
      plan.skipped.push({
        directory,
        reason: `outside ${root} (the app's folder): inside the executable, a path built from import.meta.dir cannot reach it; give the executable its place on disk (an absolute path, an environment variable)`,
      });
      continue;
    }
    const files = filesUnder(directory);
    for (const file of files) {
      const specifier = relative(dirname(entry), file).split(sep).join("/");
      imports.push(
        `import ${JSON.stringify(specifier.startsWith(".") ? specifier : `./${specifier}`)} with { type: "file" };`,
      );
    }
    plan.embedded.push({ directory, users, files: files.length });
  }
  if (imports.length > 0) {
    const module = join(dirname(entry), `.webfw-embed-${process.pid}.ts`);
    writeFileSync(
      module,
      `// Generated by webfw build: the app's directories, embedded as assets.\n${imports.join("\n")}\n`,
    );
    plan.module = module;
    plan.cleanup = () => rmSync(module, { force: true });
  }
  return plan;
}

/**
 * A Bun plugin that makes the app's `import.meta.main` false in Worker threads
 * (Bun compiles it to `true` in every thread of an executable).
 */
export function mainThreadGuard(entry: string): Bun.BunPlugin {
  const escaped = entry.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return {
    name: "webfw-main-thread-guard",
    setup(build) {
      build.onLoad({ filter: new RegExp(`^${escaped}$`) }, async (args) => {
        const text = await Bun.file(args.path).text();
        const ext = args.path.slice(args.path.lastIndexOf(".") + 1);
        const loader = ext === "tsx" || ext === "jsx" ? ext : ext === "ts" || ext === "mts" ? "ts" : "js";
        return {
          contents: text.replaceAll("import.meta.main", "(import.meta.main && Bun.isMainThread)"),
          loader,
        };
      });
    },
  };
}
