/**
 * The type-check cost of a typed client against its peers (issue #40): the same generated API
 * in webfw (`webfw/client`), Elysia (`@elysiajs/eden`'s `treaty`) and Hono (`hc`), each in its
 * own idiom, at 50, 200 and 500 routes. Each API has SubRouter-sized groups of 20 routes in
 * their own files (webfw: `SubRouter`s with exported handles; Elysia: `new Elysia({ prefix })`
 * chains; Hono: `new Hono()` chains mounted with `.route(prefix, …)`), four route shapes in
 * turn (GET with a typed path parameter and query, POST with a validated JSON body, PUT with
 * both, GET of a list), and a front end that calls every route once and reads a field.
 *
 * Per framework and size: `tsc --extendedDiagnostics` (check time, instantiations, memory),
 * and the editor's re-check: a TypeScript language service (what an editor runs) with the
 * project loaded and checked, then one route's returned field renamed and the front-end file
 * that calls it re-checked, timed. Runs pinned to one core when `taskset` exists, frameworks
 * alternated. Peers: `cd bench && npm install`. webfw is read through its declaration files.
 *
 *   bun bench/client-types-peers.ts [--sizes 50,200,500] [--repeat 1] [--keep]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import ts from "typescript";
import {
  benchCompilerOptions,
  buildDeclarations,
  routeGroups as groups,
  linkTypeModules,
  median,
  REPO,
  type TscMeasure,
  tscMeasure,
  tscVersion,
  writeWebfwApi,
} from "./lib/typecheck-project.ts";

const BENCH_MODULES = join(import.meta.dir, "node_modules");

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "50,200,500" },
    repeat: { type: "string", default: "1" },
    keep: { type: "boolean", default: false },
    // Internal: the child process that measures one editor re-check (see `measure`).
    recheck: { type: "string" },
  },
});
const sizes = values.sizes.split(",").map(Number);
const repeat = Number(values.repeat);
const FRAMEWORKS = ["webfw", "elysia", "hono"] as const;
type Framework = (typeof FRAMEWORKS)[number];

// ------------------------------------------------------------------ webfw

function webfwRoute(j: number): string {
  switch (j % 4) {
    case 0:
      return `export const i${j} = router.get("/items${j}/:id", ({ args }) => ({ id: args.id, name: \`n\${args.q}\`, at: new Date(), price${j}: ${j} }), { args: { id: t.int(), q: t.str().default("x") } });`;
    case 1:
      return `export const i${j} = router.post("/items${j}", ({ parsedBody }) => ({ ...parsedBody, id: ${j} }), { body: z.object({ title: z.string(), tags: z.array(z.string()) }) });`;
    case 2:
      return `export const i${j} = router.put("/items${j}/:id", ({ args, parsedBody }) => ({ id: args.id, title: parsedBody.title, done: parsedBody.done }), { args: { id: t.int() }, body: z.object({ title: z.string(), done: z.boolean() }) });`;
    default:
      return `export const i${j} = router.get("/items${j}", ({ args }) => args.tags.map((tag) => ({ tag })), { args: { tags: t.list(t.str()) } });`;
  }
}

function webfwCall(f: number, j: number): string {
  const base = `/r${f}/items${j}`;
  switch (j % 4) {
    case 0:
      return `{ const r = await api.get("${base}/:id", { params: { id: 1 }, args: { q: "a" } }); if (r.ok) n += r.data.price${j}; }`;
    case 1:
      return `{ const r = await api.post("${base}", { body: { title: "t", tags: [] } }); if (r.ok) n += r.data.id; }`;
    case 2:
      return `{ const r = await api.put("${base}/:id", { params: { id: 2 }, body: { title: "t", done: true } }); if (r.ok && r.data.done) n += 1; }`;
    default:
      return `{ const r = await api.get("${base}", { args: { tags: ["a"] } }); if (r.ok) n += r.data.length; }`;
  }
}

function webfwProject(dir: string, size: number): void {
  const route = (f: number, j: number) => webfwRoute(j).replace(/export const i/, `export const r${f}i`);
  writeWebfwApi(dir, size, { route, call: webfwCall }, true);
}

// ------------------------------------------------------------------ Elysia + Eden treaty

function elysiaRoute(j: number): string {
  switch (j % 4) {
    case 0:
      return `.get("/items${j}/:id", ({ params, query }) => ({ id: params.id, name: \`n\${query.q}\`, at: new Date().toISOString(), price${j}: ${j} }), { params: t.Object({ id: t.Numeric() }), query: t.Object({ q: t.String({ default: "x" }) }) })`;
    case 1:
      return `.post("/items${j}", ({ body }) => ({ ...body, id: ${j} }), { body: t.Object({ title: t.String(), tags: t.Array(t.String()) }) })`;
    case 2:
      return `.put("/items${j}/:id", ({ params, body }) => ({ id: params.id, title: body.title, done: body.done }), { params: t.Object({ id: t.Numeric() }), body: t.Object({ title: t.String(), done: t.Boolean() }) })`;
    default:
      return `.get("/items${j}", ({ query }) => query.tags.map((tag) => ({ tag })), { query: t.Object({ tags: t.Array(t.String()) }) })`;
  }
}

function elysiaCall(f: number, j: number): string {
  const at = `api.r${f}.items${j}`;
  switch (j % 4) {
    case 0:
      return `{ const r = await ${at}({ id: 1 }).get({ query: { q: "a" } }); if (r.data) n += r.data.price${j}; }`;
    case 1:
      return `{ const r = await ${at}.post({ title: "t", tags: [] }); if (r.data) n += r.data.id; }`;
    case 2:
      return `{ const r = await ${at}({ id: 2 }).put({ title: "t", done: true }); if (r.data?.done) n += 1; }`;
    default:
      return `{ const r = await ${at}.get({ query: { tags: ["a"] } }); if (r.data) n += r.data.length; }`;
  }
}

function elysiaProject(dir: string, size: number): void {
  const files = groups(size);
  files.forEach((count, f) => {
    const routes = Array.from({ length: count }, (_, j) => `  ${elysiaRoute(j)}`);
    writeFileSync(
      join(dir, `routes${f}.ts`),
      `import { Elysia, t } from "elysia";\nexport const router${f} = new Elysia({ prefix: "/r${f}" })\n${routes.join("\n")};\n`,
    );
  });
  const imports = files.map((_, f) => `import { router${f} } from "./routes${f}.ts";`);
  const uses = files.map((_, f) => `  .use(router${f})`);
  writeFileSync(
    join(dir, "app.ts"),
    `import { Elysia } from "elysia";\n${imports.join("\n")}\nexport const app = new Elysia()\n${uses.join("\n")};\nexport type App = typeof app;\n`,
  );
  files.forEach((count, f) => {
    const calls = Array.from({ length: count }, (_, j) => `  ${elysiaCall(f, j)}`);
    writeFileSync(
      join(dir, `front${f}.ts`),
      `import { treaty } from "@elysiajs/eden";\nimport type { App } from "./app.ts";\nconst api = treaty<App>("localhost:8080");\nexport async function calls${f}(): Promise<number> {\n  let n = 0;\n${calls.join("\n")}\n  return n;\n}\n`,
    );
  });
}

// ------------------------------------------------------------------ Hono + hc

function honoRoute(j: number): string {
  switch (j % 4) {
    case 0:
      return `.get("/items${j}/:id", validator("query", (v) => ({ q: String(v.q ?? "x") })), (c) => c.json({ id: Number(c.req.param("id")), name: \`n\${c.req.valid("query").q}\`, at: new Date().toISOString(), price${j}: ${j} }))`;
    case 1:
      return `.post("/items${j}", validator("json", (v) => v as { title: string; tags: string[] }), (c) => c.json({ ...c.req.valid("json"), id: ${j} }))`;
    case 2:
      return `.put("/items${j}/:id", validator("json", (v) => v as { title: string; done: boolean }), (c) => { const body = c.req.valid("json"); return c.json({ id: Number(c.req.param("id")), title: body.title, done: body.done }); })`;
    default:
      return `.get("/items${j}", validator("query", (v) => ({ tags: ([] as string[]).concat(v.tags ?? []) })), (c) => c.json(c.req.valid("query").tags.map((tag) => ({ tag }))))`;
  }
}

function honoCall(f: number, j: number): string {
  const at = `api.r${f}.items${j}`;
  switch (j % 4) {
    case 0:
      return `{ const r = await ${at}[":id"].$get({ param: { id: "1" }, query: { q: "a" } }); if (r.ok) n += (await r.json()).price${j}; }`;
    case 1:
      return `{ const r = await ${at}.$post({ json: { title: "t", tags: [] } }); if (r.ok) n += (await r.json()).id; }`;
    case 2:
      return `{ const r = await ${at}[":id"].$put({ param: { id: "2" }, json: { title: "t", done: true } }); if (r.ok && (await r.json()).done) n += 1; }`;
    default:
      return `{ const r = await ${at}.$get({ query: { tags: ["a"] } }); if (r.ok) n += (await r.json()).length; }`;
  }
}

function honoProject(dir: string, size: number): void {
  const files = groups(size);
  files.forEach((count, f) => {
    const routes = Array.from({ length: count }, (_, j) => `  ${honoRoute(j)}`);
    writeFileSync(
      join(dir, `routes${f}.ts`),
      `import { Hono } from "hono";\nimport { validator } from "hono/validator";\nexport const router${f} = new Hono()\n${routes.join("\n")};\n`,
    );
  });
  const imports = files.map((_, f) => `import { router${f} } from "./routes${f}.ts";`);
  const routes = files.map((_, f) => `  .route("/r${f}", router${f})`);
  writeFileSync(
    join(dir, "app.ts"),
    `import { Hono } from "hono";\n${imports.join("\n")}\nexport const app = new Hono()\n${routes.join("\n")};\nexport type App = typeof app;\n`,
  );
  files.forEach((count, f) => {
    const calls = Array.from({ length: count }, (_, j) => `  ${honoCall(f, j)}`);
    writeFileSync(
      join(dir, `front${f}.ts`),
      `import { hc } from "hono/client";\nimport type { App } from "./app.ts";\nconst api = hc<App>("http://localhost:8080");\nexport async function calls${f}(): Promise<number> {\n  let n = 0;\n${calls.join("\n")}\n  return n;\n}\n`,
    );
  });
}

// ------------------------------------------------------------------ projects and measures

function project(root: string, framework: Framework, size: number, webfwTypes: string): string {
  const dir = join(root, `${framework}-${size}`);
  const peers = readdirSync(BENCH_MODULES).filter((n) => !n.startsWith("."));
  linkTypeModules(
    dir,
    peers.map((name) => join(BENCH_MODULES, name)),
  );
  ({ webfw: webfwProject, elysia: elysiaProject, hono: honoProject })[framework](dir, size);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: benchCompilerOptions(webfwTypes), include: ["*.ts"] }, null, 2),
  );
  return dir;
}

interface Measure extends TscMeasure {
  recheckSeconds: number;
}

/**
 * The editor's re-check: a language service over the project, every front-end file checked
 * once (the editor open and settled), then route 0 of routes0.ts has its returned field renamed
 * and front0.ts (which calls it) is checked again; the time of that second check.
 */
function editorRecheck(dir: string): number {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(dir, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error(`no tsconfig in ${dir}`);
  const versions = new Map<string, number>();
  const texts = new Map<string, string>();
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => config.options,
    getScriptFileNames: () => config.fileNames,
    getScriptVersion: (file) => String(versions.get(file) ?? 0),
    getScriptSnapshot: (file) => {
      const text = texts.get(file) ?? (ts.sys.fileExists(file) ? ts.sys.readFile(file) : undefined);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => dir,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
    realpath: ts.sys.realpath,
  };
  const service = ts.createLanguageService(host, ts.createDocumentRegistry());
  const fronts = config.fileNames.filter((file) => /front\d+\.ts$/.test(file));
  for (const file of fronts) service.getSemanticDiagnostics(file);
  const routes = config.fileNames.find((file) => file.endsWith("routes0.ts")) as string;
  const front = config.fileNames.find((file) => file.endsWith("front0.ts")) as string;
  const source = readFileSync(routes, "utf8");
  texts.set(routes, source.replace("price0: 0", "prica0: 0"));
  versions.set(routes, 1);
  const started = performance.now();
  const diagnostics = service.getSemanticDiagnostics(front);
  const seconds = (performance.now() - started) / 1000;
  // The rename must be seen: the front end reads `price0`, so the re-check reports it.
  if (!diagnostics.some((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n").includes("price0"))) {
    throw new Error(`the editor re-check of ${front} missed the renamed field`);
  }
  service.dispose();
  return seconds;
}

function measure(dir: string): Measure {
  const compiled = tscMeasure(dir);
  // In a child process, pinned like tsc, so that the service's memory and warm-up do not add up here.
  const pin = Bun.which("taskset") ? ["taskset", "-c", "1"] : [];
  const command = [...pin, process.execPath, import.meta.path, "--recheck", dir];
  const result = spawnSync(command[0] as string, command.slice(1), { encoding: "utf8" });
  const seconds = Number(/recheck ([\d.]+)/.exec(result.stdout)?.[1]);
  if (!Number.isFinite(seconds))
    throw new Error(`re-check failed in ${dir}:\n${result.stdout}${result.stderr}`);
  return { ...compiled, recheckSeconds: seconds };
}

if (values.recheck) {
  console.log(`recheck ${editorRecheck(values.recheck).toFixed(3)}`);
  process.exit(0);
}

const root = mkdtempSync(join(tmpdir(), "webfw-client-peers-"));
const webfwTypes = join(root, "webfw-types");
buildDeclarations(REPO, webfwTypes);

const version = (name: string) =>
  (JSON.parse(readFileSync(join(BENCH_MODULES, name, "package.json"), "utf8")) as { version: string })
    .version;
console.log(
  `tsc ${tscVersion()}; elysia ${version("elysia")} + @elysiajs/eden ${version("@elysiajs/eden")}; hono ${version("hono")}; ${repeat} run(s) each, medians`,
);
const rows: string[] = [];
for (const size of sizes) {
  const dirs = Object.fromEntries(
    FRAMEWORKS.map((fw) => [fw, project(root, fw, size, webfwTypes)]),
  ) as Record<Framework, string>;
  const samples = Object.fromEntries(FRAMEWORKS.map((fw) => [fw, [] as Measure[]])) as Record<
    Framework,
    Measure[]
  >;
  for (let i = 0; i < repeat; i++) {
    // Rotate the order each repeat, so drift on a shared machine hits every framework alike.
    for (let k = 0; k < FRAMEWORKS.length; k++) {
      const fw = FRAMEWORKS[(k + i) % FRAMEWORKS.length] as Framework;
      samples[fw].push(measure(dirs[fw]));
    }
  }
  for (const fw of FRAMEWORKS) {
    const list = samples[fw];
    const m = {
      check: median(list.map((s) => s.checkSeconds)),
      inst: median(list.map((s) => s.instantiations)),
      memory: median(list.map((s) => s.memoryMb)),
      recheck: median(list.map((s) => s.recheckSeconds)),
    };
    rows.push(
      `| ${size} | ${fw} | ${m.check.toFixed(2)} s | ${(m.inst / 1000).toFixed(0)} k | ${m.memory.toFixed(0)} MB | ${m.recheck.toFixed(2)} s |`,
    );
    console.log(rows[rows.length - 1]);
  }
}
console.log(
  "\n| routes | client | tsc check time | instantiations | memory | editor re-check after a route edit |",
);
console.log("|--:|--|--:|--:|--:|--:|");
for (const row of rows) console.log(row);
if (!values.keep) rmSync(root, { recursive: true, force: true });
else console.log(`\nprojects kept in ${root}`);
