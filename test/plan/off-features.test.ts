/**
 * Off costs nothing (docs/architecture.md, "Layers"; docs/performance.md, "Idle memory"): every
 * request-path feature is a mount from its own folder that loads its modules only when the app
 * turns it on, and the core (src/plan/build.ts, src/serve/) imports none of them.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const SRC = join(import.meta.dir, "../../src");
const FIXTURE = join(import.meta.dir, "fixtures/loaded-modules.ts");

/** Feature folders (and the feature files of shared folders) the core must not import. */
const FEATURES = [
  "observability/",
  "log/access-log",
  "request-id/echo",
  "compression/",
  "rate-limit/",
  "ip-filter/",
  "cross-origin/",
  "secure-headers/",
  "server-timing/",
  "conditional/",
  "contracts/",
  "cache/",
  "uploads/",
  "openapi/",
  "mcp/",
  "websocket/",
  "jobs/",
  "dashboard/",
  "static/",
  "sessions/",
  "templating/",
  "cors/",
  "serve/client-address-layer",
];

/** What a file imports at run time (`import … from`, `export … from`, `import()`, `require()`), not `import type`. */
function runtimeImports(file: string): string[] {
  const source = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of source.matchAll(/^(?:import|export)\s+(type\s+)?([^;]*?)\s+from\s+"([^"]+)"/gm)) {
    if (match[1] !== undefined) continue;
    const clause = (match[2] as string).trim();
    // `import { type A, type B } from` loads nothing either.
    const names = clause.startsWith("{")
      ? clause
          .slice(1, -1)
          .split(",")
          .map((name) => name.trim())
      : [];
    if (names.length > 0 && names.every((name) => name === "" || name.startsWith("type "))) continue;
    found.push(match[3] as string);
  }
  for (const match of source.matchAll(/(?:import|require)\(\s*"([^"]+)"\s*\)/g))
    found.push(match[1] as string);
  return found;
}

function featureImports(file: string, base: string): string[] {
  return runtimeImports(file).filter((specifier) => {
    const target = join(base, specifier).slice(SRC.length + 1);
    return FEATURES.some((feature) => target.startsWith(feature));
  });
}

test("src/plan/build.ts and src/serve/ import no feature at run time", () => {
  const offenders: string[] = [];
  for (const imported of featureImports(join(SRC, "plan/build.ts"), join(SRC, "plan")))
    offenders.push(`plan/build.ts → ${imported}`);
  for (const name of readdirSync(join(SRC, "serve"))) {
    // The client-address mount is the feature's own value (src/app.ts lists it), not the core.
    if (!name.endsWith(".ts") || name === "client-address-mount.ts" || name === "client-address-layer.ts")
      continue;
    for (const imported of featureImports(join(SRC, "serve", name), join(SRC, "serve")))
      offenders.push(`serve/${name} → ${imported}`);
  }
  expect(offenders).toEqual([]);
});

test("the scan sees a feature import (it can fail)", () => {
  expect(featureImports(join(SRC, "compression/mount.ts"), join(SRC, "compression"))).toEqual(["./index.ts"]);
});

/** Modules of a feature's implementation, and the big dependencies: none loads for a one-route app. */
const HEAVY = [
  /src\/rate-limit\/(plan|layer|memory-store|redis-store)\.ts$/,
  /src\/ip-filter\/(plan|layer)\.ts$/,
  /src\/cross-origin\/(plan|check)\.ts$/,
  /src\/conditional\/index\.ts$/,
  /src\/contracts\/enforce\.ts$/,
  /src\/cache\/(plan|layer|response-cache)\.ts$/,
  /src\/uploads\/(admit|gate)\.ts$/,
  /src\/compression\/index\.ts$/,
  /src\/secure-headers\/layer\.ts$/,
  /src\/request-id\/echo\.ts$/,
  /src\/log\/access-log\.ts$/,
  /src\/server-timing\/index\.ts$/,
  /src\/serve\/client-address-layer\.ts$/,
  /src\/openapi\/(index|generate)\.ts$/,
  /src\/observability\/(metrics|server-span)\.ts$/,
  /src\/mcp\/index\.ts$/,
  /src\/websocket\/install\.ts$/,
  /src\/jobs\/system\.ts$/,
  /node_modules\/(@modelcontextprotocol|prom-client|ioredis|bullmq|jose|mustache|@scalar|swagger-ui-dist|croner|@opentelemetry)\//,
];

async function loaded(
  env: Record<string, string>,
  preload: string[] = [],
): Promise<{ status: number; loaded: string[]; regexps: string[] }> {
  const proc = Bun.spawn([process.execPath, ...preload, FIXTURE], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "ignore",
  });
  const out = await new Response(proc.stdout).text();
  expect(await proc.exited).toBe(0);
  return JSON.parse(out.trim().split("\n").at(-1) ?? "{}");
}

const heavy = (modules: string[]) =>
  modules
    .filter((path) => HEAVY.some((pattern) => pattern.test(path)))
    .map((path) =>
      path.slice(path.indexOf("/src/") >= 0 ? path.indexOf("/src/") + 1 : path.indexOf("node_modules/")),
    );

test("a one-route app loads no feature module and no big dependency", async () => {
  const { status, loaded: modules } = await loaded({ FEATURES: "0" });
  expect(status).toBe(200);
  expect(heavy(modules)).toEqual([]);
});

test("features the app turns on load (the check can fail)", async () => {
  const { status, loaded: modules } = await loaded({ FEATURES: "1" });
  expect(status).toBe(200);
  const names = heavy(modules);
  for (const name of [
    "src/rate-limit/layer.ts",
    "src/request-id/echo.ts",
    "src/compression/index.ts",
    "src/conditional/index.ts",
    "src/server-timing/index.ts",
    "src/secure-headers/layer.ts",
    "src/log/access-log.ts",
    "src/cross-origin/plan.ts",
  ])
    expect(names).toContain(name);
});

test("the OpenAPI document is generated on its first request", async () => {
  const { loaded: modules } = await loaded({ FEATURES: "0", OPENAPI: "1" });
  expect(heavy(modules)).toContain("src/openapi/generate.ts");
});

/**
 * What only some apps use, outside the feature folders: the command line's help, table and actions,
 * TLS, binaries, files, JWKS, CORS, WebSocket routes, problem details, the checks of options the app
 * did not give, and the observability layers (docs/performance.md, "Start-up and idle memory").
 */
const ROOT = join(import.meta.dir, "../..");
const UNUSED_BY_ONE_ROUTE = [
  /src\/launch\/(actions|help|did-you-mean|version|open|parse-argv|flag-table)\.ts$/,
  /src\/transport\/tls\.ts$/,
  /src\/embed\/(directories|embedded-writes|real-path)\.ts$/,
  /src\/files\/serve-file\.ts$/,
  /src\/static\/safe-path\.ts$/,
  /src\/auth\/jwks\.ts$/,
  /src\/cors\/index\.ts$/,
  /src\/websocket\/route\.ts$/,
  /src\/problem\/(details|from-error)\.ts$/,
  /src\/(secure-headers|rate-limit|cache|ip-filter)\/options\.ts$/,
  /src\/observability\/index\.ts$/,
];
const unused = (modules: string[]) =>
  modules.flatMap((path) =>
    path === join(ROOT, "package.json")
      ? ["package.json"]
      : UNUSED_BY_ONE_ROUTE.some((pattern) => pattern.test(path))
        ? [path.slice(path.indexOf("/src/") + 1)]
        : [],
  );

test("a one-route app started without flags loads none of what it does not use", async () => {
  const { status, loaded: modules } = await loaded({ FEATURES: "0" });
  expect(status).toBe(200);
  expect(unused(modules)).toEqual([]);
});

test("what an app uses loads (the check can fail)", async () => {
  const { loaded: modules } = await loaded({ FEATURES: "1" });
  const names = unused(modules);
  for (const name of ["src/cors/index.ts", "src/websocket/route.ts", "src/secure-headers/options.ts"])
    expect(names).toContain(name);
});

/**
 * The first regular expression a process runs pages in ~0.8 MB of the engine, and a dozen of them
 * about 1.8 MB (docs/performance.md, "Start-up without regular expressions"): a one-route app runs
 * none from its start to its first answer.
 */
const COUNT_REGEXPS = ["--preload", join(import.meta.dir, "fixtures/count-regexps.ts")];

test("a one-route app runs no regular expression from its start to its first answer", async () => {
  const { status, regexps } = await loaded({ FEATURES: "0" }, COUNT_REGEXPS);
  expect(status).toBe(200);
  expect(regexps).toEqual([]);
});

test("the count sees the framework's regular expressions (it can fail)", async () => {
  // A Host that is an IP literal is checked with one (src/http/request-target.ts).
  const { status, regexps } = await loaded({ FEATURES: "0", HOST: "[::1]" }, COUNT_REGEXPS);
  expect(status).toBe(200);
  expect(regexps.length).toBe(1);
  expect(regexps[0]).toStartWith("/^\\[[0-9A-Fa-f:.]+\\]$");
});

/**
 * The engine's first JIT compile pages in ~1 MB that a raw `Bun.serve` never touches
 * (docs/performance.md, "A predicate per character"): a one-route app with the access log on, as an
 * app starts by default, compiles no function from its start to its first answer. JavaScriptCore
 * prints each compile's code with `BUN_JSC_dump…Disassembly=1`.
 */
async function jitCompiles(env: Record<string, string>): Promise<{ status: number; compiled: string[] }> {
  const proc = Bun.spawn([process.execPath, FIXTURE], {
    env: {
      ...process.env,
      ...env,
      LIST_MODULES: "0",
      // Compiles on the thread that asks for them, so none is still running (and unprinted) at exit.
      BUN_JSC_useConcurrentJIT: "0",
      BUN_JSC_dumpBaselineDisassembly: "1",
      BUN_JSC_dumpDFGDisassembly: "1",
      BUN_JSC_dumpFTLDisassembly: "1",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  expect(await proc.exited).toBe(0);
  const { status } = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as { status: number };
  const compiled = err
    .split("\n")
    .filter((line) => line.startsWith("Generated "))
    .map((line) => line.slice(0, line.indexOf("#")));
  return { status, compiled };
}

test("a one-route app JIT-compiles nothing from its start to its first answer", async () => {
  const { status, compiled } = await jitCompiles({ FEATURES: "0", ACCESS_LOG: "1" });
  expect(status).toBe(200);
  expect(compiled).toEqual([]);
});

test("the JIT's compiles are seen (it can fail)", async () => {
  // Forty answers, each with its access-log line: the line's formatting runs often enough to compile.
  const { status, compiled } = await jitCompiles({ FEATURES: "0", ACCESS_LOG: "1", REQUESTS: "40" });
  expect(status).toBe(200);
  // The log key's formatting, by whichever tier compiled it first (a busy machine also sees DFG).
  expect(compiled.some((line) => line.startsWith("Generated ") && line.endsWith(" for formatKey"))).toBe(
    true,
  );
});
