/**
 * Issue #40: a user's API module with exported route handles compiles with `declaration: true`
 * (a monorepo sharing API types), with `isolatedDeclarations` where the user annotates, and
 * `tsc --incremental` re-checks the front end after a route's result changes. Before, every
 * exported handle was TS2742 ("the inferred type … cannot be named without a reference to
 * ./node_modules/webfw/dist/types/…"), and `--incremental` saw the handles as `any`: renaming a
 * returned field was not re-checked in the client file. Each project is compiled outside the
 * repository with webfw linked in node_modules, so `tsc` reads the package's declaration files.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publicEntryDeclarations } from "./helpers/entries.ts";
import { compilerOptions, generateApi } from "./helpers/generated-api.ts";
import { buildPackageDeclarations, REPO, tsc, writeProject } from "./helpers/tsc-project.ts";
import { unnamedTypes } from "./helpers/unnamed-types.ts";

const tmp = mkdtempSync(join(tmpdir(), "webfw-declarations-"));

beforeAll(buildPackageDeclarations, 120_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("every type the public API carries is exported from an entry point", () => {
  test("the declaration files reach no unexported type", () => {
    const entries = publicEntryDeclarations();
    // `app.build()` is for tools: its result is nameable, its members are webfw's plumbing.
    const unnamed = unnamedTypes(join(REPO, "dist/types"), entries, ["BuiltApp", "BuildOptions"]);
    expect(unnamed.map((u) => `${u.name} (${u.file}, from ${u.from.join(", ")})`)).toEqual([]);
  }, 60_000);
});

describe("a generated API with exported handles, as a user's package", () => {
  test("compiles with declaration: true: no TS2742, the handles' types written out", async () => {
    const dir = join(tmp, "declaration");
    const out = join(dir, "out");
    generateApi(dir, 50, compilerOptions({ declaration: true, emitDeclarationOnly: true, outDir: out }));
    const result = await tsc(dir);
    expect(result.output.match(/error TS2742/g) ?? []).toEqual([]);
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
    // The emitted declaration of a handle names webfw's types through the package root.
    const routes = readFileSync(join(out, "routes0.d.ts"), "utf8");
    expect(routes).toContain('import("webfw").Route<"GET", "/items0/:id"');
    expect(routes).not.toContain("dist/types");
    const app = readFileSync(join(out, "app.d.ts"), "utf8");
    expect(app).toContain('import("webfw").SubRouter<Api, "/v1/admin">');
  }, 180_000);

  // Two projects in their own folders, each a chain of tsc runs: the two chains run side by side
  // (CPU-bound, one core each), not one after the other.
  for (const mode of ["declaration", "noEmit"] as const) {
    test.concurrent(`tsc --incremental (${mode}) re-checks the client after a returned field is renamed`, async () => {
      const dir = join(tmp, `incremental-${mode}`);
      const options =
        mode === "declaration"
          ? { declaration: true, emitDeclarationOnly: true, outDir: join(dir, "out"), incremental: true }
          : { noEmit: true, incremental: true };
      const { priceFile } = generateApi(dir, 20, compilerOptions(options));
      const first = await tsc(dir);
      expect(first.output).toBe("");
      expect(first.code).toBe(0);
      // The edits the issue describes. With the package's types unnameable, the first build stored no
      // signature for the routes file and the next edit re-checked everything; from then on its
      // signature was that of `any` handles and never changed, so after one unrelated edit the
      // rename below was not re-checked in front.ts (measured on the package before the fix).
      const source = readFileSync(priceFile, "utf8");
      expect(source).toContain("price: 0,");
      const steps = [
        { edit: "an unrelated edit", text: `${source}// edited\n`, error: false },
        { edit: "price renamed prica", text: source.replace("price: 0,", "prica: 0,"), error: true },
        { edit: "renamed back", text: source, error: false },
      ];
      for (const step of steps) {
        writeFileSync(priceFile, step.text);
        const result = await tsc(dir);
        const reported =
          /front\.ts\(\d+,\d+\): error TS2551: Property 'price' does not exist on type .*Did you mean 'prica'\?/.test(
            result.output,
          );
        expect({ edit: step.edit, reported }).toEqual({ edit: step.edit, reported: step.error });
        if (!step.error) expect(result.output).toBe("");
      }
    }, 240_000);
  }
});

describe("isolatedDeclarations, where the user annotates", () => {
  test("the app, routers, the typed router class and a handle can be annotated with public types", async () => {
    const dir = join(tmp, "isolated");
    const options = compilerOptions({
      declaration: true,
      emitDeclarationOnly: true,
      isolatedDeclarations: true,
      outDir: join(dir, "out"),
    });
    writeProject(dir, options, {
      "api.ts": `import { type Route, SubRouter, t, Webfw } from "webfw";
import type { NumberArg, TypedSubRouter } from "webfw/types";
export interface Api { global: { db: { name: string } } }
export const app: Webfw<Api> = new Webfw<Api>(import.meta.path);
export const ApiRouter: TypedSubRouter<Api> = SubRouter.typed<Api>();
export const v1: SubRouter<Api, "/v1"> = app.router("/v1");
export const notes: SubRouter<Api, "/notes"> = new ApiRouter(import.meta.path, { prefix: "/notes" });
export const getNote: Route<"GET", "/:id", { id: number; db: string }, { args: { id: NumberArg } }, "/notes"> =
  notes.get("/:id", ({ args, globalDependencies }) => ({ id: args.id, db: globalDependencies.db.name }), {
    args: { id: t.int() },
  });
`,
      "front.ts": `import { client, type Client } from "webfw/client";
import type * as Api from "./api.ts";
export const api: Client<typeof Api> = client<typeof Api>("http://localhost");
export async function dbOf(id: number): Promise<string> {
  const note = await api.get("/notes/:id", { params: { id } });
  return note.ok ? note.data.db : "";
}
`,
    });
    const result = await tsc(dir);
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  }, 120_000);
});
