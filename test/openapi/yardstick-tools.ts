/**
 * Tools no one here wrote, run on the documents webfw generates: Stoplight Prism's
 * validating proxy, `redocly lint` and an SDK from `@hey-api/openapi-ts`
 * (devDependencies, installed by `npm install`). They are Node programs; Bun runs them
 * (Prism asks for Node >= 24, the system has 20).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Webfw } from "../../src/index.ts";
import { fetchDocument, type Json } from "./helpers.ts";

const ROOT = join(import.meta.dir, "../..");
export const bin = (name: string) => join(ROOT, "node_modules/.bin", name);

/** The app's document written to a fresh folder. */
export async function writeDocument(
  app: Webfw,
  name: string,
): Promise<{ dir: string; file: string; doc: Json }> {
  const doc = await fetchDocument(app);
  const dir = mkdtempSync(join(tmpdir(), `webfw-${name}-`));
  const file = join(dir, "openapi.json");
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return { dir, file, doc };
}

/** A port nothing listens on now. */
function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port as number;
  probe.stop(true);
  return port;
}

export interface PrismProxy {
  url: string;
  stop(): void;
}

/** `prism proxy FILE UPSTREAM`: forwards every request and reports violations in `sl-violations`. */
export async function startPrism(file: string, upstream: string): Promise<PrismProxy> {
  const port = freePort();
  const child = Bun.spawn(
    ["bun", bin("prism"), "proxy", file, upstream, "-p", String(port), "-h", "127.0.0.1"],
    {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, NO_COLOR: "1" },
    },
  );
  const reader = child.stdout.getReader();
  let seen = "";
  const deadline = Date.now() + 30_000;
  while (!seen.includes("Prism is listening")) {
    const { value, done } = await reader.read();
    if (done || Date.now() > deadline) {
      child.kill();
      throw new Error(`Prism did not start: ${seen}${await new Response(child.stderr).text()}`);
    }
    seen += new TextDecoder().decode(value);
  }
  // Keep reading so that its log never fills the pipe.
  void (async () => {
    while (!(await reader.read()).done) {}
  })();
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

/** One request of a corpus; `invalid`: the document calls it invalid (so it must not get a 2xx). */
export interface Probe {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | FormData;
  invalid?: boolean;
  /**
   * Sent to the app itself, not through Prism: Prism's proxy follows redirects upstream, so a 3xx
   * never reaches it. The answer's status must be one the document declares for the operation.
   */
  redirect?: boolean;
}

export interface Finding {
  probe: string;
  status: number;
  problem: string;
}

/** Sends every probe through Prism; returns the violations of responses and the invalid requests that got a 2xx. */
export async function runCorpus(proxy: PrismProxy, probes: Probe[]): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const probe of probes) {
    const label = `${probe.method} ${probe.path}${probe.invalid ? " (invalid)" : ""} ${typeof probe.body === "string" ? probe.body : ""}`;
    const response = await fetch(proxy.url + probe.path, {
      method: probe.method,
      headers: probe.headers,
      body: probe.body,
      redirect: "manual",
      signal: AbortSignal.timeout(10_000),
    }).catch((error: Error) => {
      throw new Error(`${label}: ${error.message}`);
    });
    await response.arrayBuffer();
    const violations = JSON.parse(response.headers.get("sl-violations") ?? "[]") as {
      location: string[];
      message: string;
    }[];
    const ok = response.status >= 200 && response.status < 300;
    for (const v of violations) {
      if (v.location[0] === "response")
        findings.push({ probe: label, status: response.status, problem: v.message });
    }
    const requestViolations = violations.filter((v) => v.location[0] === "request");
    if (requestViolations.length > 0 && ok) {
      findings.push({
        probe: label,
        status: response.status,
        problem: `invalid request accepted: ${requestViolations.map((v) => v.message).join("; ")}`,
      });
    }
    if (probe.invalid === true && requestViolations.length === 0) {
      findings.push({
        probe: label,
        status: response.status,
        problem: "the corpus calls it invalid, Prism did not",
      });
    }
    if (probe.invalid !== true && requestViolations.length > 0) {
      findings.push({
        probe: label,
        status: response.status,
        problem: `the corpus calls it valid, Prism did not: ${requestViolations.map((v) => v.message).join("; ")}`,
      });
    }
  }
  return findings;
}

/** `redocly lint` with the repository's redocly.yaml (recommended rules), offline: its error count and report. */
export function redoclyErrors(file: string): { errors: number; report: string } {
  const run = Bun.spawnSync(
    ["bun", bin("redocly"), "lint", file, "--format=stylish", "--config", join(ROOT, "redocly.yaml")],
    {
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: "off",
        REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
        NO_COLOR: "1",
      },
    },
  );
  const report = run.stdout.toString() + run.stderr.toString();
  const match = /(\d+) errors?/.exec(report);
  const errors =
    /valid|Woohoo/.test(report) && !/Validation failed/.test(report) ? 0 : Number(match?.[1] ?? 1);
  return { errors, report };
}

/** Generates an SDK with @hey-api/openapi-ts and compiles it with `tsc --strict`; returns its types file. */
export function generateSdk(dir: string, file: string): { types: string; tsc: string; ok: boolean } {
  const out = join(dir, "sdk");
  const gen = Bun.spawnSync(["bun", bin("openapi-ts"), "-i", file, "-o", out], {
    env: { ...process.env, NO_COLOR: "1" },
  });
  if (gen.exitCode !== 0) return { types: "", tsc: gen.stderr.toString() + gen.stdout.toString(), ok: false };
  const tsconfig = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: "ES2022",
      module: "ESNext",
      moduleResolution: "Bundler",
      lib: ["ES2022", "DOM", "DOM.Iterable"],
      skipLibCheck: false,
      allowImportingTsExtensions: true,
    },
    include: ["sdk/**/*.ts"],
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  const tsc = Bun.spawnSync(["bun", bin("tsc"), "-p", join(dir, "tsconfig.json")]);
  return {
    types:
      Bun.file(join(out, "types.gen.ts")).size > 0
        ? require("node:fs").readFileSync(join(out, "types.gen.ts"), "utf8")
        : "",
    tsc: tsc.stdout.toString() + tsc.stderr.toString(),
    ok: tsc.exitCode === 0,
  };
}

/** `get_items_id` → `GetItemsId`, hey-api's type-name stem. */
export function typeStem(operationId: string): string {
  return operationId
    .split(/[_\W]+/)
    .filter(Boolean)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join("");
}

/** The body of `export type NAME = { … };` in the generated types. */
export function typeBlock(types: string, name: string): string | null {
  const start = types.indexOf(`export type ${name} = {`);
  if (start < 0) return null;
  const end = types.indexOf("\n};", start);
  return types.slice(start, end + 3);
}
