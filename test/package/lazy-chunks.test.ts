/**
 * The built package's list of lazily required chunks (docs/packaging.md, "Lazy chunks in a `webfw
 * build`"): scripts/build.ts writes it from Bun's metafile, and `webfw build` embeds exactly those
 * chunks by turning the listed calls into `require()`. The list must name every lazy require the
 * code has (a missing one is a chunk left out of an executable) and nothing the code lacks.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix, relative, sep } from "node:path";
import { buildBundle } from "../../scripts/build.ts";
import {
  LAZY_CHUNKS_FILE,
  type LazyChunks,
  lazyPackageCall,
  lazyRequireCall,
  readLazyChunks,
  requireListedCalls,
} from "../../src/launch/lazy-chunks.ts";
import { staticallyLoaded } from "../helpers/static-imports.ts";

const out = mkdtempSync(join(tmpdir(), "webfw-lazy-chunks-"));
let list: LazyChunks;

beforeAll(async () => {
  await buildBundle(out);
  list = readLazyChunks(out);
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Every `.js` file under `dir`, relative to `out`, `/`-separated. */
function outputs(dir = out): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return outputs(path);
    return entry.name.endsWith(".js") ? [relative(out, path).split(sep).join("/")] : [];
  });
}

describe(`dist/${LAZY_CHUNKS_FILE}`, () => {
  test("lists every lazy require the built code has, and only those", () => {
    const inCode: Record<string, string[]> = {};
    for (const file of outputs()) {
      const code = readFileSync(join(out, file), "utf8");
      const specifiers = [...code.matchAll(/import\.meta\.require\("([^"]+)"\)/g)].map((m) => m[1] as string);
      if (specifiers.length > 0) inCode[file] = [...new Set(specifiers)].sort();
    }
    expect(Object.keys(inCode).length).toBeGreaterThan(5);
    expect(list.requires).toEqual(inCode);
  });

  test("each listed chunk was written beside its caller", () => {
    for (const [file, specifiers] of Object.entries(list.requires))
      for (const specifier of specifiers)
        expect(outputs()).toContain(posix.normalize(posix.join(posix.dirname(file), specifier)));
  });

  test("the lazy JWKS module of the package's root entry is in the list, required from its core chunk", () => {
    const callers = Object.entries(list.requires)
      .filter(([, specifiers]) => specifiers.some((s) => /^(\.\.\/chunks|\.)\/jwks-[a-z0-9]+\.js$/.test(s)))
      .map(([file]) => file);
    expect(callers.length).toBe(1);
    expect(staticGraph("src/index.js")).toContain(callers[0]);
  });

  test("so are the packages required lazily (mustache, by MustacheTemplate), not Node's built-ins", () => {
    expect(list.packages).toEqual({ "src/templating/index.js": ["mustache"] });
    const code = readFileSync(join(out, "src/templating/index.js"), "utf8");
    expect(code).toContain(lazyPackageCall("mustache"));
  });
});

/** The outputs `file` loads through static imports, itself included (relative to `out`). */
function staticGraph(file: string): string[] {
  return [...staticallyLoaded(join(out, file))].map((path) => relative(out, path).split(sep).join("/"));
}

describe('what `import "webfw"` loads (docs/packaging.md, "One chunk at start")', () => {
  test("the root entry and one chunk of the core, with a few small chunks shared with the standalone entries", () => {
    const files = staticGraph("src/index.js");
    const sizes = files.map((file) => readFileSync(join(out, file)).byteLength).sort((a, b) => b - a);
    const total = sizes.reduce((sum, size) => sum + size, 0);
    // 44 files before the lazy modules were tied to the root entry; the command, the typed client and
    // templates each share a few helpers with the core (chunks of 1-9 KB).
    expect(files.length).toBeLessThanOrEqual(6);
    expect(sizes[0] as number).toBeGreaterThan(total * 0.85);
  });

  test("a lazy chunk imports the core chunk itself, never a piece of it", () => {
    const core = staticGraph("src/index.js");
    const [biggest] = core
      .filter((file) => file.startsWith("chunks/"))
      .sort((a, b) => readFileSync(join(out, b)).byteLength - readFileSync(join(out, a)).byteLength);
    const lazy = [
      ...new Set(
        Object.values(list.requires)
          .flat()
          .map((s) => posix.basename(s)),
      ),
    ];
    expect(lazy.length).toBeGreaterThan(5);
    for (const name of lazy) {
      const imports = staticGraph(`chunks/${name}`).filter((file) => core.includes(file));
      if (imports.length > 0) expect(imports).toContain(biggest);
    }
  });
});

describe("requireListedCalls", () => {
  test("turns exactly the listed calls into require(), every occurrence", () => {
    const code =
      'a(import.meta.require("./x.js"));b(import.meta.require("./x.js"));c(import.meta.require("./y.js"));d(__require("mustache"))';
    const calls = [
      { call: lazyRequireCall("./x.js"), specifier: "./x.js" },
      { call: lazyPackageCall("mustache"), specifier: "mustache" },
    ];
    expect(requireListedCalls(code, calls, "f.js")).toBe(
      'a(require("./x.js"));b(require("./x.js"));c(import.meta.require("./y.js"));d(require("mustache"))',
    );
  });

  test("a listed call the code lacks fails the build (a dist/ that no longer matches its list)", () => {
    expect(() =>
      requireListedCalls("nothing here", [{ call: lazyRequireCall("./x.js"), specifier: "./x.js" }], "f.js"),
    ).toThrow(
      `f.js: import.meta.require("./x.js") is listed in ${LAZY_CHUNKS_FILE} but not in the code; rebuild the package`,
    );
  });

  test("a dist/ without the list is refused with what to do", () => {
    const empty = mkdtempSync(join(tmpdir(), "webfw-no-list-"));
    try {
      expect(() => readLazyChunks(empty)).toThrow("rebuild the package (npm run build)");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
