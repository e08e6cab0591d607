/**
 * Generated webfw API projects for the type-check benches (bench/client-types.ts,
 * bench/client-types-peers.ts; docs/performance.md, docs/client.md): SubRouters of 20 routes in
 * their own files, an app that includes them and exports every handle, and a front end per routes
 * file that calls each route once through `client<typeof Api>`. Each bench brings its own route
 * and call shapes; the layout, the linked node_modules, the compiler options and the `tsc`
 * measure are the same for both, so their figures compare.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const REPO = join(import.meta.dir, "../..");
export const TSC = join(REPO, "node_modules/typescript/bin/tsc");
const ROUTES_PER_FILE = 20;

/** The number of routes in each routes file of an API of `size` routes. */
export function routeGroups(size: number): number[] {
  return Array.from({ length: Math.ceil(size / ROUTES_PER_FILE) }, (_, f) =>
    Math.min(ROUTES_PER_FILE, size - f * ROUTES_PER_FILE),
  );
}

/** node_modules for a generated project: the repo's zod and Bun types, plus every package of `extraModules`. */
export function linkTypeModules(dir: string, extraModules: string[] = []): void {
  mkdirSync(join(dir, "node_modules/@types"), { recursive: true });
  for (const name of ["zod", "@types/bun", "@types/node", "bun-types", "undici-types"]) {
    symlinkSync(join(REPO, "node_modules", name), join(dir, "node_modules", name), "dir");
  }
  for (const path of extraModules) {
    symlinkSync(path, join(dir, "node_modules", path.split("/").at(-1) as string), "dir");
  }
}

/** A user's strict options, `webfw` read through the declaration files in `webfwTypes`. */
export function benchCompilerOptions(webfwTypes: string): Record<string, unknown> {
  return {
    target: "ESNext",
    module: "Preserve",
    moduleResolution: "bundler",
    moduleDetection: "force",
    lib: ["ESNext", "DOM", "DOM.Iterable"],
    types: ["bun"],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    paths: {
      webfw: [join(webfwTypes, "index.d.ts")],
      "webfw/client": [join(webfwTypes, "client/index.d.ts")],
    },
  };
}

export interface WebfwApiShapes {
  /** Route `j` of routes file `f`, a statement on `router` (that file's SubRouter). */
  route(f: number, j: number): string;
  /** The client call of the same route: a block on `api` that adds to `n`. */
  call(f: number, j: number): string;
}

/**
 * Writes routes{f}.ts, app.ts (every handle re-exported) and, with `withClient`, front{f}.ts into
 * `dir`. One front-end file per routes file: a function body of 1,000 calls is too large for
 * TypeScript's control-flow analysis; every file makes its own client of the same type.
 */
export function writeWebfwApi(dir: string, size: number, shapes: WebfwApiShapes, withClient: boolean): void {
  const files = routeGroups(size);
  files.forEach((count, f) => {
    const body = [
      `import { z } from "zod";`,
      `import { SubRouter, t } from "webfw";`,
      `export const router${f} = new SubRouter(import.meta.path, { prefix: "/r${f}" });`,
      `const router = router${f};`,
      ...Array.from({ length: count }, (_, j) => shapes.route(f, j)),
    ];
    writeFileSync(join(dir, `routes${f}.ts`), `${body.join("\n")}\n`);
  });
  const imports = files.map(
    (_, f) => `import { router${f} } from "./routes${f}.ts";\nexport * from "./routes${f}.ts";`,
  );
  const includes = files.map((_, f) => `app.includeRouter(router${f});`);
  writeFileSync(
    join(dir, "app.ts"),
    `import { Webfw } from "webfw";\n${imports.join("\n")}\nexport const app = new Webfw(import.meta.path);\n${includes.join("\n")}\n`,
  );
  if (!withClient) return;
  files.forEach((count, f) => {
    const calls = Array.from({ length: count }, (_, j) => `  ${shapes.call(f, j)}`);
    writeFileSync(
      join(dir, `front${f}.ts`),
      `import { client } from "webfw/client";\nimport type * as Api from "./app.ts";\nconst api = client<typeof Api>("http://localhost:8080");\nexport async function calls${f}(): Promise<number> {\n  let n = 0;\n${calls.join("\n")}\n  return n;\n}\n`,
    );
  });
}

export interface TscMeasure {
  /** TypeScript's count of type instantiations: the machine-independent measure of the work. */
  instantiations: number;
  checkSeconds: number;
  totalSeconds: number;
  memoryMb: number;
}

/** `tsc -p dir --extendedDiagnostics`, pinned to one core when `taskset` exists; throws on a type error. */
export function tscMeasure(dir: string): TscMeasure {
  const pin = Bun.which("taskset") ? ["taskset", "-c", "1"] : [];
  const command = [...pin, process.execPath, TSC, "-p", dir, "--extendedDiagnostics"];
  const result = spawnSync(command[0] as string, command.slice(1), { encoding: "utf8" });
  const out = `${result.stdout}${result.stderr}`;
  if (/error TS\d+/.test(out)) throw new Error(`tsc failed in ${dir}:\n${out.slice(0, 3000)}`);
  const number = (label: string) => Number(new RegExp(`${label}:\\s+([\\d.]+)`).exec(out)?.[1] ?? Number.NaN);
  return {
    instantiations: number("Instantiations"),
    checkSeconds: number("Check time"),
    totalSeconds: number("Total time"),
    memoryMb: number("Memory used") / 1024,
  };
}

/** webfw's declaration files, as a user's `tsc` sees the package (`npm run types`), built from `checkout`. */
export function buildDeclarations(checkout: string, outDir: string): string {
  const result = spawnSync(
    process.execPath,
    [TSC, "-p", join(checkout, "tsconfig.types.json"), "--outDir", outDir],
    {
      encoding: "utf8",
    },
  );
  if (result.status !== 0) throw new Error(`declaration build failed:\n${result.stdout}${result.stderr}`);
  return outDir;
}

export function tscVersion(): string {
  return execFileSync(process.execPath, [TSC, "--version"], { encoding: "utf8" }).trim();
}

export const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
