/** The ```ts snippets of README.md and docs/*.md (test/docs/snippets.test.ts, test/docs/packed-imports.test.ts). */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const REPO = join(import.meta.dir, "../../..");

export const PAGES = [
  "README.md",
  ...readdirSync(join(REPO, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

export const readPage = (page: string): string => readFileSync(join(REPO, page), "utf8");

/** Each ```ts (or typescript, tsx) block of `page`, with the line it starts on. */
export function snippets(page: string): { line: number; code: string }[] {
  const text = readPage(page);
  return [...text.matchAll(/```(?:ts|typescript|tsx)\n([\s\S]*?)```/g)].map((m) => ({
    line: text.slice(0, m.index).split("\n").length,
    code: m[1] ?? "",
  }));
}

export interface WebfwImport {
  /** `webfw` or `webfw/<subpath>`. */
  specifier: string;
  /** The imported names as written (`type Route`, `t`, `Webfw as App`). */
  names: string[];
  /** A namespace or default import (`import * as x from "webfw"`), kept whole. */
  statement: string;
}

/** The `import … from "webfw…"` statements of a snippet. */
export function webfwImports(code: string): WebfwImport[] {
  const found: WebfwImport[] = [];
  for (const m of code.matchAll(
    /import\s+(type\s+)?((?:(?!\bfrom\b)[^;])*?)\s+from\s+["'](webfw(?:\/[\w-]+)?)["'];?/g,
  )) {
    const typeOnly = m[1] !== undefined;
    const clause = m[2] ?? "";
    const specifier = m[3] ?? "webfw";
    const braces = /\{([\s\S]*)\}/.exec(clause);
    const names = (braces?.[1] ?? "")
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "")
      .map((part) => (typeOnly && !part.startsWith("type ") ? `type ${part}` : part));
    found.push({ specifier, names, statement: m[0] });
  }
  return found;
}
