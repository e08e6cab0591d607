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
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  benchCompilerOptions,
  buildDeclarations,
  linkTypeModules,
  median,
  REPO,
  type TscMeasure,
  tscMeasure,
  tscVersion,
  writeWebfwApi,
} from "./lib/typecheck-project.ts";

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
  linkTypeModules(dir);
  writeWebfwApi(dir, size, { route, call }, withClient);
  const include = ["app.ts", "routes*.ts", ...(withClient ? ["front*.ts"] : [])];
  const compilerOptions = benchCompilerOptions(webfwTypes);
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include }, null, 2));
}

const root = mkdtempSync(join(tmpdir(), "webfw-client-types-"));
const currentTypes = buildDeclarations(REPO, join(root, "types-current"));
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
  beforeTypes = buildDeclarations(checkout, join(root, "types-before"));
}
const variants = ["app", "client", ...(beforeTypes ? ["before"] : [])];
const rows: string[] = [];
console.log(`tsc ${tscVersion()}, ${repeat} runs each, medians`);
for (const size of sizes) {
  const dirs: Record<string, string> = {};
  for (const variant of variants) {
    dirs[variant] = join(root, `${variant}-${size}`);
    const types = variant === "before" ? (beforeTypes as string) : currentTypes;
    generate(dirs[variant], size, types, variant === "client");
  }
  const samples: Record<string, TscMeasure[]> = Object.fromEntries(variants.map((v) => [v, []]));
  for (let i = 0; i < repeat; i++) {
    // Alternate, rotating the order each repeat, so drift on the shared machine hits every variant alike.
    const order = variants.map((_, k) => variants[(k + i) % variants.length] as string);
    for (const variant of order) samples[variant]?.push(tscMeasure(dirs[variant] as string));
  }
  const summary = (variant: string) => {
    const list = samples[variant] as TscMeasure[];
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
