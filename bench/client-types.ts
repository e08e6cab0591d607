/**
 * The type-check cost of webfw/client (issue #20, docs/performance.md: a 200-route app with client
 * types ≤ 2 × the same app without). Generates apps of 20, 200 and 1,000 routes in the
 * README's style (statements, SubRouters of 20 routes in their own files, typed args,
 * zod and `t.object` bodies, auth, dates in the results) and type-checks each with `tsc`:
 *
 *   app      the app alone (its route handles exported, no client)
 *   client   the app plus a front-end file that calls every route once through `client<typeof Api>`
 *            and reads a field of each result
 *   before   (with --before REV) the same app against webfw at REV, before route handles
 *            existed, to show what capturing the route types costs the app itself
 *
 * Each compile runs `--repeat` times pinned to one core (taskset when present), alternating
 * the variants; the table prints the median check time, its spread (min–max) and tsc's
 * "Memory used". `bun bench/client-types.ts [--sizes 20,200,1000] [--repeat 5] [--before 861178a]`
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const REPO = join(import.meta.dir, "..");
const TSC = join(REPO, "node_modules/typescript/bin/tsc");
const ROUTES_PER_FILE = 20;

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "20,200,1000" },
    repeat: { type: "string", default: "5" },
    before: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const sizes = values.sizes.split(",").map(Number);
const repeat = Number(values.repeat);

/** One route of file `f`, number `j`: four shapes in turn, like a CRUD API. */
function route(f: number, j: number): string {
  const name = `r${f}_${j}`;
  switch (j % 4) {
    case 0:
      return `export const ${name} = router.get("/items${j}/:id", ({ args }) => ({ id: args.id, name: \`n\${args.q}\`, at: new Date(), tags: [args.q], page: args.page }), {
  args: { id: t.int(), q: t.str().default("x"), page: t.int().min(1).default(1) },
});`;
    case 1:
      return `export const ${name} = router.post("/items${j}", ({ parsedBody }) => [{ ...parsedBody, id: ${j}, created: new Date() }, 201] as const, {
  body: z.object({ title: z.string().min(1), count: z.number().optional(), tags: z.array(z.string()) }),
  authRequired: true,
  responses: { 409: "exists" },
});`;
    case 2:
      return `export const ${name} = router.put("/items${j}/:id", ({ args, parsedBody }) => ({ id: args.id, title: parsedBody.title, done: parsedBody.done }), {
  args: { id: t.int() },
  body: t.object({ title: t.str(), done: t.bool().default(false) }),
});`;
    default:
      return `export const ${name} = router.get("/items${j}", ({ args }) => args.tags.map((tag) => ({ tag, at: new Date(), render: () => tag })), {
  args: { tags: t.list(t.str()), limit: t.optional(t.int()) },
});`;
  }
}

/** The client call for the same route, reading one field of the success. */
function call(f: number, j: number): string {
  const base = `/r${f}`;
  switch (j % 4) {
    case 0:
      return `{ const r = await api.get("${base}/items${j}/:id", { params: { id: 1 }, args: { q: "a" } }); if (r.ok) n += r.data.at.length; else n += r.status; }`;
    case 1:
      return `{ const r = await api.post("${base}/items${j}", { body: { title: "t", tags: [] } }); if (r.ok) n += r.data.created.length; else if (r.status === 422) n += r.issues.length; }`;
    case 2:
      return `{ const r = await api.put("${base}/items${j}/:id", { params: { id: 2 }, body: { title: "t" } }); if (r.ok && r.data.done) n += 1; }`;
    default:
      return `{ const r = await api.get("${base}/items${j}", { args: { tags: ["a"] } }); if (r.ok) n += r.data.length; }`;
  }
}

function generate(dir: string, size: number, webfwTypes: string, withClient: boolean): void {
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(dir, "node_modules/@types"), { recursive: true });
  for (const name of ["zod", "@types/bun", "@types/node", "bun-types", "undici-types"]) {
    symlinkSync(join(REPO, "node_modules", name), join(dir, "node_modules", name), "dir");
  }
  const files = Math.ceil(size / ROUTES_PER_FILE);
  const imports: string[] = [];
  for (let f = 0; f < files; f++) {
    const count = Math.min(ROUTES_PER_FILE, size - f * ROUTES_PER_FILE);
    const body = [
      `import { z } from "zod";`,
      `import { SubRouter, t } from "webfw";`,
      `export const router${f} = new SubRouter(import.meta.path, { prefix: "/r${f}" });`,
      `const router = router${f};`,
      ...Array.from({ length: count }, (_, j) => route(f, j)),
    ];
    writeFileSync(join(dir, `routes${f}.ts`), `${body.join("\n")}\n`);
    imports.push(`import { router${f} } from "./routes${f}.ts";\nexport * from "./routes${f}.ts";`);
  }
  const includes = Array.from({ length: files }, (_, f) => `app.includeRouter(router${f});`);
  writeFileSync(
    join(dir, "app.ts"),
    `import { Webfw } from "webfw";\n${imports.join("\n")}\nexport const app = new Webfw(import.meta.path);\n${includes.join("\n")}\n`,
  );
  const include = ["app.ts", "routes*.ts"];
  if (withClient) {
    // One front-end file per routes file (a function body of 1,000 calls is too large for
    // TypeScript's control-flow analysis); every file makes its own client of the same type.
    for (let f = 0; f < files; f++) {
      const count = Math.min(ROUTES_PER_FILE, size - f * ROUTES_PER_FILE);
      const calls = Array.from({ length: count }, (_, j) => `  ${call(f, j)}`);
      writeFileSync(
        join(dir, `front${f}.ts`),
        `import { client } from "webfw/client";\nimport type * as Api from "./app.ts";\nconst api = client<typeof Api>("http://localhost:8080");\nexport async function calls${f}(): Promise<number> {\n  let n = 0;\n${calls.join("\n")}\n  return n;\n}\n`,
      );
    }
    include.push("front*.ts");
  }
  const compilerOptions = {
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
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include }, null, 2));
}

interface Measure {
  /** TypeScript's count of type instantiations: the machine-independent measure of the work. */
  instantiations: number;
  checkSeconds: number;
  totalSeconds: number;
  memoryMb: number;
}

function compile(dir: string): Measure {
  const pin = Bun.which("taskset") ? ["taskset", "-c", "1"] : [];
  const result = spawnSync(
    pin[0] ?? process.execPath,
    [...pin.slice(1), ...(pin.length ? [process.execPath] : []), TSC, "-p", dir, "--extendedDiagnostics"],
    {
      encoding: "utf8",
    },
  );
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

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/** webfw's declaration files, as a user's `tsc` sees the package (`npm run types`), built from `checkout`. */
function declarations(checkout: string, outDir: string): string {
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

const root = mkdtempSync(join(tmpdir(), "webfw-client-types-"));
const currentTypes = declarations(REPO, join(root, "types-current"));
let beforeTypes: string | null = null;
if (values.before) {
  const checkout = join(root, "before");
  mkdirSync(checkout);
  const archive = execFileSync(
    "git",
    [
      "-C",
      REPO,
      "archive",
      values.before,
      "src",
      "native",
      "package.json",
      "tsconfig.json",
      "tsconfig.types.json",
    ],
    { maxBuffer: 1 << 30 },
  );
  execFileSync("tar", ["-x", "-C", checkout], { input: archive, maxBuffer: 1 << 30 });
  symlinkSync(join(REPO, "node_modules"), join(checkout, "node_modules"), "dir");
  beforeTypes = declarations(checkout, join(root, "types-before"));
}
const variants = ["app", "client", ...(beforeTypes ? ["before"] : [])];
const rows: string[] = [];
console.log(
  `tsc ${execFileSync(process.execPath, [TSC, "--version"], { encoding: "utf8" }).trim()}, ${repeat} runs each, medians`,
);
for (const size of sizes) {
  const dirs: Record<string, string> = {};
  for (const variant of variants) {
    dirs[variant] = join(root, `${variant}-${size}`);
    const types = variant === "before" ? (beforeTypes as string) : currentTypes;
    generate(dirs[variant], size, types, variant === "client");
  }
  const samples: Record<string, Measure[]> = Object.fromEntries(variants.map((v) => [v, []]));
  for (let i = 0; i < repeat; i++) {
    // Alternate, rotating the order each repeat, so drift on the shared machine hits every variant alike.
    const order = variants.map((_, k) => variants[(k + i) % variants.length] as string);
    for (const variant of order) samples[variant]?.push(compile(dirs[variant] as string));
  }
  const summary = (variant: string) => {
    const list = samples[variant] as Measure[];
    const totals = list.map((m) => m.totalSeconds);
    return {
      total: median(totals),
      spread: `${Math.min(...totals).toFixed(2)}–${Math.max(...totals).toFixed(2)}`,
      memory: median(list.map((m) => m.memoryMb)),
      instantiations: median(list.map((m) => m.instantiations)),
    };
  };
  const app = summary("app");
  const withClient = summary("client");
  const before = beforeTypes ? summary("before") : null;
  const cell = (m: ReturnType<typeof summary>) =>
    `${m.total.toFixed(2)} s (${m.spread}), ${m.memory.toFixed(0)} MB, ${(m.instantiations / 1e6).toFixed(2)} M inst.`;
  rows.push(
    `| ${size} | ${cell(app)} | ${cell(withClient)} | ${(withClient.total / app.total).toFixed(2)} × (inst. ${(withClient.instantiations / app.instantiations).toFixed(2)} ×) | ${before ? cell(before) : "–"} |`,
  );
}
console.log(
  "\n| routes | app only: tsc total (min–max), memory, type instantiations | app + client calling every route | ratio, time (instantiations) (target at 200: ≤ 2 ×) | app at --before |",
);
console.log("|--:|--|--|--:|--|");
for (const row of rows) console.log(row);
if (!values.keep) rmSync(root, { recursive: true, force: true });
else console.log(`\nprojects kept in ${root}`);
