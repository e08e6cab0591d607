/**
 * Issue 31: what a user copies from the docs works.
 * - Every ```ts snippet of README.md and docs/*.md that uses a name webfw exports shows the import
 *   of that name (from "webfw" or a subpath), so `testClient`, `t`, `redirect`… are never a guess.
 * - Every `examples/…` path the docs cite exists and is in the published package
 *   (`npm pack --dry-run --json`, which runs `prepare`: the built code and the declaration files
 *   are in it too).
 * - The package runs nothing when a user installs it from the registry (no preinstall, install or
 *   postinstall); `prepare` builds dist/ (docs/packaging.md), which npm runs in a clone, before
 *   packing, and on a git install (after installing the development dependencies it needs).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { runCommand } from "../helpers/run-command.ts";
import { publicEntries } from "../types/helpers/entries.ts";
import { PAGES, REPO, readPage as read, snippets } from "./helpers/doc-snippets.ts";

// Also Web globals: a snippet's `Response` or `Headers` may be either, so they are not required.
const AMBIGUOUS = new Set(["Request", "Response", "Headers", "Url", "Session"]);

const exported = new Map<string, string>();
for (const { specifier, source } of publicEntries()) {
  for (const name of Object.keys(await import(join(REPO, source)))) {
    if (!exported.has(name) && !AMBIGUOUS.has(name)) exported.set(name, specifier);
  }
}

/** A pattern that finds `name` used as code (a class, `t.int(`, `json(`, `client<`), not as a method or in text. */
function usePattern(name: string): RegExp {
  if (name === "t") return /(?<![.\w$])t\.[a-z]\w*\(/;
  if (name === "statusCodes") return /(?<![.\w$])statusCodes\./;
  if (/^[A-Z]/.test(name)) return new RegExp(`(?<![.\\w$])${name}\\b`);
  return new RegExp(`(?<![.\\w$])${name}\\s*[<(]`);
}

/** The webfw names a snippet uses (comments and string literals left out). */
export function webfwNamesUsed(code: string): string[] {
  const bare = code
    .replace(/\/\/.*$/gm, "")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '""');
  return [...exported.keys()].filter((name) => usePattern(name).test(bare));
}

/** The names a snippet imports from webfw or its subpaths. */
export function webfwNamesImported(code: string): Set<string> {
  const names = new Set<string>();
  for (const match of code.matchAll(/import\s+(?:type\s+)?([\s\S]*?)\s+from\s+["']webfw(?:\/[\w-]+)?["']/g)) {
    for (const part of (match[1] ?? "").replace(/[{}]/g, " ").split(/[\s,]+/)) {
      if (part !== "" && part !== "type") names.add(part);
    }
  }
  return names;
}

describe("doc snippets show their imports", () => {
  test("the checker finds a missing import and accepts a present one", () => {
    const missing = 'const api = testClient<typeof Api>(app);\napp.get("/", () => redirect("/x"));';
    expect(webfwNamesUsed(missing)).toEqual(expect.arrayContaining(["testClient", "redirect"]));
    expect(webfwNamesImported(missing).size).toBe(0);
    const given = 'import { testClient } from "webfw/testing";\nimport { redirect, t } from "webfw";\n';
    expect([...webfwNamesImported(given)].sort()).toEqual(["redirect", "t", "testClient"]);
    // A method of the same name, a word in a comment or a string is not a use.
    expect(webfwNamesUsed('request.json(); // Webfw\nconst s = "t.int()";')).toEqual([]);
  });

  for (const page of PAGES) {
    test(page, () => {
      const problems: string[] = [];
      for (const { line, code } of snippets(page)) {
        const imported = webfwNamesImported(code);
        const missing = webfwNamesUsed(code).filter((name) => !imported.has(name));
        if (missing.length > 0)
          problems.push(
            `${page}:${line}: uses ${missing.map((n) => `${n} (${exported.get(n)})`).join(", ")} without importing it`,
          );
      }
      expect(problems).toEqual([]);
    });
  }
});

describe("the published package", () => {
  test("no install-time script; prepare builds the package", () => {
    const { scripts } = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
    for (const hook of ["preinstall", "install", "postinstall"]) expect(scripts[hook]).toBeUndefined();
    expect(scripts.prepare).toBe("bun scripts/build.ts");
  });

  test("every examples/ path the docs cite exists and is packed", async () => {
    const {
      code,
      stdout: out,
      stderr,
    } = await runCommand(["npm", "pack", "--dry-run", "--json"], { cwd: REPO });
    expect(code, stderr).toBe(0);
    // npm prints the prepare script's output before the JSON.
    const files = new Set(
      (JSON.parse(out.slice(out.indexOf("[\n"))) as { files: { path: string }[] }[])[0]?.files.map(
        (f) => f.path,
      ),
    );
    // prepare ran: the built code and the declaration files `exports` point at are in the package.
    expect(files.has("dist/src/index.js")).toBe(true);
    expect(files.has("dist/cli/webfw.js")).toBe(true);
    expect(files.has("dist/types/index.d.ts")).toBe(true);
    expect(files.has("dist/types/client/index.d.ts")).toBe(true);
    const cited = new Set<string>();
    for (const page of PAGES) {
      for (const match of read(page).matchAll(/(?<![\w/.-])examples\/[\w./-]*[\w/]/g)) cited.add(match[0]);
    }
    expect(cited.size).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const path of cited) {
      const absolute = join(REPO, path);
      if (!existsSync(absolute)) problems.push(`${path}: cited but missing`);
      else if (statSync(absolute).isDirectory()) {
        const prefix = path.endsWith("/") ? path : `${path}/`;
        if (![...files].some((f) => f.startsWith(prefix))) problems.push(`${path}: not in the package`);
      } else if (!files.has(path)) problems.push(`${path}: not in the package`);
    }
    expect(problems).toEqual([]);
  }, 180_000);
});
