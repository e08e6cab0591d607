/**
 * A user's TypeScript project outside the repository, checked by `tsc` the way a user's build
 * checks it (docs/typescript.md): `webfw` linked in node_modules as a `file:` install leaves it,
 * so `tsc` reads the package's declaration files (`npm run types`), never the sources. Shared by
 * test/types/consumer.test.ts and test/types/declarations.test.ts.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCommand } from "../../helpers/run-command.ts";

export const REPO = join(import.meta.dir, "../../..");
const TSC = join(REPO, "node_modules/typescript/bin/tsc");

/** The strict options of a user's project: no DOM lib, no skipLibCheck. */
export const USER_STRICT: Readonly<Record<string, unknown>> = {
  target: "ESNext",
  module: "Preserve",
  moduleResolution: "bundler",
  moduleDetection: "force",
  lib: ["ESNext"],
  types: ["bun"],
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  verbatimModuleSyntax: true,
};

/** `tsc -p dir`: its exit code and everything it printed. */
export async function tsc(dir: string): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await runCommand([process.execPath, TSC, "-p", dir]);
  return { code, output: stdout + stderr };
}

let declarations: Promise<void> | null = null;

/**
 * The declaration files the package's `types` point at, built as `prepare` builds them after the
 * bundle (in a clone they may be stale): run it in `beforeAll` before any project is checked. Built
 * once per test run: the files of one `bun test` process share this module, and nothing in a run
 * edits src/ (a failed build fails every file that asks).
 */
export function buildPackageDeclarations(): Promise<void> {
  declarations ??= tsc(join(REPO, "tsconfig.types.json")).then((built) => {
    if (built.code !== 0) throw new Error(`declaration build failed:\n${built.output}`);
  });
  return declarations;
}

/** node_modules as `bun add webfw zod` + `@types/bun` leave it, linked to this repo's copies. */
export function linkModules(dir: string): void {
  mkdirSync(join(dir, "node_modules/@types"), { recursive: true });
  symlinkSync(REPO, join(dir, "node_modules/webfw"), "dir");
  for (const name of ["@types/bun", "@types/node", "bun-types", "undici-types", "zod", "@types/mustache"]) {
    symlinkSync(join(REPO, "node_modules", name), join(dir, "node_modules", name), "dir");
  }
}

/** A project in `dir`: linked node_modules, a tsconfig.json with `compilerOptions` over `*.ts`, and `files`. */
export function writeProject(
  dir: string,
  compilerOptions: Record<string, unknown>,
  files: Record<string, string>,
): void {
  mkdirSync(dir, { recursive: true });
  linkModules(dir);
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["*.ts"] }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}
