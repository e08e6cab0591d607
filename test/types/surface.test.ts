/**
 * Issue #33: the public surface (docs/exports.md). The declaration files are built as `prepare`
 * builds them, then read from the entry points package.json `exports` lists:
 * - no `@internal` member ships (`stripInternal`), and no plumbing name is exported;
 * - the root exports what every app uses, at most 35 names (values and types);
 * - no entry exports a name that shadows a Web global, except the spec's `Request`, `Response`
 *   and `Headers` (and the spec aliases `webfw/types` repeats for them);
 * - each name has one entry point: no alias kept for history.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { publicEntries, REPO } from "./helpers/entries.ts";
import { buildPackageDeclarations } from "./helpers/tsc-project.ts";

const DIST = join(REPO, "dist/types");
const SPEC_GLOBALS = new Set(["Request", "Response", "Headers"]);
/** Plumbing that must stay out of every entry point (src/router/middleware.ts, src/cors, src/websocket…). */
const PLUMBING = [
  "installPair",
  "corsPolicyOf",
  "markCorsPair",
  "resolveWebSocketOptions",
  "checkBroadcastOptions",
  "isSendableCloseCode",
  "resolveSecureHeaders",
  "resolveMetricsOptions",
  "resolveRequestIdOptions",
  "AppState",
  "RouteRecord",
  "RoutePlan",
  "Dispatcher",
  "Registry",
];
/** Names the DOM and Bun declare globally that a user's module would lose by importing ours. */
const WEB_GLOBALS = new Set([
  ...Object.getOwnPropertyNames(globalThis),
  "URL",
  "FormData",
  "File",
  "Blob",
  "WebSocket",
  "Event",
  "EventSource",
  "MessageEvent",
  "ReadableStream",
  "Storage",
  "Location",
  "History",
  "Worker",
  "Cache",
  "Crypto",
  "Text",
  "Node",
  "Document",
  "Element",
  "Range",
  "Selection",
]);

function declarationFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return declarationFiles(path);
    return name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Every name an entry's declaration file exports, as the type checker sees it. */
function entryExports(): Map<string, string[]> {
  const entries = publicEntries();
  const files = entries.map((e) => join(DIST, e.declaration));
  const program = ts.createProgram(files, {
    noEmit: true,
    skipLibCheck: true,
    types: [],
    lib: ["lib.esnext.d.ts"],
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
  });
  const checker = program.getTypeChecker();
  const names = new Map<string, string[]>();
  for (const entry of entries) {
    const source = program.getSourceFile(join(DIST, entry.declaration));
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`no declaration file for ${entry.specifier}`);
    names.set(
      entry.specifier,
      checker.getExportsOfModule(symbol).map((s) => s.getName()),
    );
  }
  return names;
}

let exported: Map<string, string[]>;

beforeAll(async () => {
  // What `prepare` runs after the bundle (scripts/build.ts): the declaration files that ship.
  await buildPackageDeclarations();
  exported = entryExports();
}, 180_000);

describe("what ships in dist/types", () => {
  test("tsconfig.types.json strips @internal members", () => {
    const config = JSON.parse(readFileSync(join(REPO, "tsconfig.types.json"), "utf8")) as {
      compilerOptions: { stripInternal?: boolean };
    };
    expect(config.compilerOptions.stripInternal).toBe(true);
  });

  test("no declaration file carries an @internal member", () => {
    const leaks = declarationFiles(DIST).flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((line, i) => ({ line, at: `${file.slice(DIST.length + 1)}:${i + 1}` }))
        .filter(({ line }) => line.includes("@internal"))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(leaks).toEqual([]);
  });

  test("the declaration files compile on their own: stripInternal left no dangling name", () => {
    // A declaration marked @internal but named by one that ships leaves `Cannot find name` behind.
    const files = publicEntries().map((e) => join(DIST, e.declaration));
    const program = ts.createProgram(files, {
      noEmit: true,
      skipLibCheck: false,
      strict: true,
      target: ts.ScriptTarget.ESNext,
      types: ["bun"],
      typeRoots: [join(REPO, "node_modules/@types")],
      lib: ["lib.esnext.d.ts"],
      module: ts.ModuleKind.Preserve,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      allowImportingTsExtensions: true,
    });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName.startsWith(DIST))
      .map(
        (d) =>
          `${d.file?.fileName.slice(DIST.length + 1)}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`,
      );
    expect(errors).toEqual([]);
  }, 120_000);

  test("no entry point exports plumbing", () => {
    const found = [...exported].flatMap(([specifier, names]) =>
      names.filter((name) => PLUMBING.includes(name)).map((name) => `${name} (${specifier})`),
    );
    expect(found).toEqual([]);
  });
});

describe("the entry points", () => {
  test("the root exports what every app uses, at most 35 names", () => {
    const root = exported.get("webfw") ?? [];
    expect(root.length).toBeLessThanOrEqual(35);
    // Types for writing your own middleware helpers live in webfw/types, not at the root.
    expect(root).not.toContain("MiddlewareTarget");
    for (const name of [
      "Webfw",
      "SubRouter",
      "Request",
      "Response",
      "t",
      "HttpError",
      "json",
      "html",
      "redirect",
    ])
      expect(root).toContain(name);
  });

  test("every subpath of package.json exports something and has its declaration file", () => {
    for (const [specifier, names] of exported)
      expect({ specifier, empty: names.length === 0 }).toEqual({ specifier, empty: false });
  });

  test("the root names every subpath's module (src/subpath-types.ts) and tsconfig.json maps it", () => {
    const named = readFileSync(join(REPO, "src/subpath-types.ts"), "utf8");
    const config = JSON.parse(readFileSync(join(REPO, "tsconfig.json"), "utf8")) as {
      compilerOptions: { paths: Record<string, string[]> };
    };
    const missing: string[] = [];
    for (const entry of publicEntries()) {
      if (entry.specifier === "webfw") continue;
      if (!named.includes(`"./${entry.source.replace(/^src\//, "")}"`))
        missing.push(`${entry.specifier}: subpath-types`);
      if (config.compilerOptions.paths[entry.specifier]?.[0] !== `./${entry.source}`)
        missing.push(`${entry.specifier}: tsconfig paths`);
    }
    expect(missing).toEqual([]);
  });

  test("no export shadows a Web global other than the spec's Request, Response and Headers", () => {
    const shadowing = [...exported].flatMap(([specifier, names]) =>
      names.filter((n) => WEB_GLOBALS.has(n) && !SPEC_GLOBALS.has(n)).map((n) => `${n} (${specifier})`),
    );
    expect(shadowing).toEqual([]);
  });

  test("each name has one entry point (webfw/types repeats only the spec's aliases of root classes)", () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const [specifier, names] of exported) {
      for (const name of names) {
        const first = seen.get(name);
        const specAlias = specifier === "webfw/types" && ["Request", "Headers", "Identity"].includes(name);
        if (first !== undefined && !specAlias) twice.push(`${name} (${first}, ${specifier})`);
        else if (first === undefined) seen.set(name, specifier);
      }
    }
    expect(twice).toEqual([]);
  });
});
