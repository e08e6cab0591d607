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

  test("the lazy JWKS module of the package's root entry is in the list", () => {
    expect(list.requires["src/index.js"]?.some((s) => /^\.\.\/chunks\/jwks-[a-z0-9]+\.js$/.test(s))).toBe(
      true,
    );
  });

  test("so are the packages required lazily (mustache, by MustacheTemplate), not Node's built-ins", () => {
    expect(list.packages).toEqual({ "src/templating/index.js": ["mustache"] });
    const code = readFileSync(join(out, "src/templating/index.js"), "utf8");
    expect(code).toContain(lazyPackageCall("mustache"));
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
