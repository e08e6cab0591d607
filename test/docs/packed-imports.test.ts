/**
 * Issue #33: every import the docs show works against the published package. `npm pack` builds
 * the tarball as a release does (its `prepare` builds dist/); the tarball is unpacked into a
 * fresh project's node_modules/webfw the way npm lays it out, and webfw's own dependencies are
 * linked from this repository's node_modules (no network). The project is strict
 * (`strict`, `noUncheckedIndexedAccess`, `exactOptionalPropertyTypes`, `moduleResolution:
 * "bundler"`, `types: ["bun"]`, library checking on); it gets one module per ```ts snippet of
 * README.md and docs/*.md holding that snippet's `import … from "webfw…"` lines, and must compile:
 * an import that does not resolve, a name a subpath does not export, or a subpath without types
 * (TS7016 under `strict`) fails it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PAGES, REPO, snippets, webfwImports } from "./helpers/doc-snippets.ts";

const tmp = mkdtempSync(join(tmpdir(), "webfw-packed-"));
const project = join(tmp, "project");

async function run(cmd: string[], cwd: string): Promise<{ code: number; output: string }> {
  const proc = Bun.spawn(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, output: out + err };
}

/** Links `name` (a package of this repository's node_modules) into the project's node_modules. */
function link(name: string): void {
  const target = join(project, "node_modules", name);
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(join(REPO, "node_modules", name), target, "dir");
}

/** Snippet modules written: file name → where the snippet is in the docs. */
const written = new Map<string, string>();

beforeAll(async () => {
  const packed = await run(["npm", "pack", "--pack-destination", tmp, "--json"], REPO);
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.output}`);
  const tarball = readdirSync(tmp).find((f) => f.endsWith(".tgz"));
  if (tarball === undefined) throw new Error(`npm pack wrote no tarball:\n${packed.output}`);
  // npm's layout of an installed tarball: its `package/` folder becomes node_modules/webfw.
  mkdirSync(join(project, "node_modules"), { recursive: true });
  const unpacked = await run(["tar", "xzf", join(tmp, tarball), "-C", tmp], tmp);
  if (unpacked.code !== 0) throw new Error(`tar failed:\n${unpacked.output}`);
  const moved = await run(["mv", join(tmp, "package"), join(project, "node_modules/webfw")], tmp);
  if (moved.code !== 0) throw new Error(moved.output);
  // What `npm install webfw` brings besides (its dependencies), and what a Bun user adds: @types/bun.
  const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  for (const name of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) link(name);
  link("@types/bun");

  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "docs-imports", type: "module", private: true, dependencies: { webfw: "0.1.0" } }),
  );
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ESNext",
        module: "Preserve",
        moduleResolution: "bundler",
        moduleDetection: "force",
        lib: ["ESNext", "DOM"],
        types: ["bun"],
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        skipLibCheck: false,
        noEmit: true,
      },
      include: ["snippets/*.ts"],
    }),
  );
  mkdirSync(join(project, "snippets"));
  for (const page of PAGES) {
    for (const { line, code } of snippets(page)) {
      const imports = webfwImports(code);
      if (imports.length === 0) continue;
      const file = `${page.replace(/[/.]/g, "_")}_${line}.ts`;
      writeFileSync(
        join(project, "snippets", file),
        `${imports.map((i) => i.statement).join("\n")}\nexport {};\n`,
      );
      written.set(file, `${page}:${line}`);
    }
  }
}, 300_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("the docs' imports against the packed package", () => {
  test("the tarball holds a declaration file for every subpath of `exports`", () => {
    const pkg = JSON.parse(readFileSync(join(project, "node_modules/webfw/package.json"), "utf8")) as {
      exports: Record<string, string | { types: string; default: string }>;
    };
    const missing: string[] = [];
    for (const [key, target] of Object.entries(pkg.exports)) {
      if (typeof target === "string") continue;
      for (const path of [target.types, target.default]) {
        try {
          readFileSync(join(project, "node_modules/webfw", path));
        } catch {
          missing.push(`${key}: ${path}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  test("the snippets import from webfw (the extraction found them)", () => {
    expect(written.size).toBeGreaterThan(50);
  });

  test("every documented import compiles in a strict project", async () => {
    const tsc = join(REPO, "node_modules/typescript/bin/tsc");
    const result = await run([process.execPath, tsc, "-p", project], project);
    // Each error line names the snippet module; report it as the page and line of the docs.
    const errors = result.output
      .split("\n")
      .filter((l) => /error TS\d+/.test(l))
      .map((l) => l.replace(/^snippets\/([^(]+)/, (_, file: string) => written.get(file) ?? file));
    expect(errors).toEqual([]);
    expect(result.code).toBe(0);
  }, 240_000);
});
