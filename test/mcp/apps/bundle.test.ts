/**
 * The bundling path of a UI: Bun's HTML bundler makes one self-contained HTML
 * file (scripts and styles inlined, no CDN), both from `ui: { bundle }` (built
 * in process on the first read) and from the documented command
 * `bun build --compile --target=browser view.html --outdir dist`. A build that
 * fails is an error for that read, and is tried again on the next.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webfw } from "../../../src/index.ts";
import { bundleHtml } from "../../../src/mcp/apps/content.ts";

const COUNTER = join(import.meta.dir, "../../../examples/mcp-app/counter.html");
const dir = mkdtempSync(join(tmpdir(), "webfw-mcp-bundle-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every way a document could reach outside itself. */
function externalReferences(html: string): string[] {
  const patterns = [
    /<script[^>]*\bsrc\s*=/gi,
    /<link[^>]*\bhref\s*=/gi,
    /\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//gi,
    /url\(\s*["']?(?:https?:)?\/\//g, // CSS url(), lowercase (a script's `new URL("https://…")` fetches nothing)
    /@import\s+["']?(?:url\()?\s*["']?(?:https?:)?\/\//gi,
    /\bimport\s*(?:\(|[^;]*?\bfrom\s*)["'](?:https?:)?\/\//gi,
  ];
  return patterns.flatMap((pattern) => html.match(pattern) ?? []);
}

function expectSelfContained(html: string): void {
  expect(html.startsWith("<!doctype html>")).toBe(true);
  expect(externalReferences(html)).toEqual([]);
  // The page's own script (the ext-apps App) and style are inside it.
  expect(html).toContain('<script type="module">');
  expect(html).toContain("<style>");
  expect(html).toContain("ui/initialize");
  expect(html).toContain('id="increment"');
}

describe("bundling a UI into one HTML file", () => {
  test("the check finds external references (it can fail)", () => {
    expect(externalReferences('<script src="https://cdn.example/x.js"></script>').length).toBeGreaterThan(0);
    expect(externalReferences('<link rel="stylesheet" href="./a.css">').length).toBe(1);
    expect(
      externalReferences("<style>@import url('https://fonts.example/a.css');</style>").length,
    ).toBeGreaterThan(0);
    expect(
      externalReferences('<script type="module">import x from "https://esm.sh/x";</script>').length,
    ).toBe(1);
  });

  test("ui: { bundle } builds the example's counter View in process", async () => {
    expectSelfContained(await bundleHtml(COUNTER));
  }, 60_000);

  test("the documented command gives the same single file", async () => {
    const out = join(dir, "dist");
    const build = Bun.spawnSync(
      [process.execPath, "build", "--compile", "--target=browser", "--minify", COUNTER, "--outdir", out],
      { stderr: "pipe", stdout: "pipe" },
    );
    expect(build.exitCode).toBe(0);
    expect(readdirSync(out)).toEqual(["counter.html"]);
    expectSelfContained(readFileSync(join(out, "counter.html"), "utf-8"));
  }, 60_000);

  test("a failed build is an error for that read, and is tried again on the next", async () => {
    const entry = join(dir, "view.html");
    writeFileSync(
      entry,
      '<!doctype html><html><head></head><body><script type="module" src="./view.ts"></script></body></html>',
    );
    writeFileSync(join(dir, "view.ts"), 'import { missing } from "./nowhere.ts";\nconsole.log(missing);\n');
    const app = new Webfw(import.meta.path);
    app.mcp.tool(() => "x", { name: "built", ui: { bundle: entry } });
    const server = await app.start({ port: 0, host: "127.0.0.1" });
    const read = async () => {
      const response = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "resources/read",
          params: { uri: "ui://tools/built" },
        }),
      });
      return (await response.json()) as {
        result?: { contents: { text: string }[] };
        error?: { code: number; message: string };
      };
    };
    try {
      const failed = await read();
      expect(failed.error?.code).toBe(-32603);
      expect(failed.error?.message).toContain("bundling");
      writeFileSync(join(dir, "view.ts"), 'document.body.dataset.ok = "yes";\n');
      const fixed = await read();
      expect(fixed.result?.contents[0]?.text).toContain('dataset.ok="yes"');
      expect(externalReferences(fixed.result?.contents[0]?.text ?? "")).toEqual([]);
    } finally {
      await server.stop(true);
    }
  }, 60_000);
});

test("an app whose tools name no UI loads no MCP Apps module", async () => {
  const script = `
    import { Webfw } from ${JSON.stringify(join(import.meta.dir, "../../../src/index.ts"))};
    const app = new Webfw(import.meta.path);
    app.mcp.tool(() => "x", { name: "plain" });
    if (process.argv.includes("ui")) app.mcp.tool(() => "y", { name: "viewed", ui: "<p>v</p>" });
    const server = await app.start({ port: 0, host: "127.0.0.1" });
    await fetch(server.url + "/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    console.log(JSON.stringify(Object.keys(require.cache).filter((path) => path.includes("/src/mcp/apps/"))));
    await server.stop(true);
    process.exit(0); // the fetch's kept-alive socket would hold the process ~10 s
  `;
  const file = join(dir, "off.ts");
  writeFileSync(file, script);
  const run = (args: string[]) => {
    const child = Bun.spawnSync([process.execPath, file, ...args], { stdout: "pipe", stderr: "pipe" });
    const lines = child.stdout.toString().trim().split("\n");
    return JSON.parse(lines[lines.length - 1] as string) as string[];
  };
  expect(run([])).toEqual([]);
  // The same app with one UI does load it (so the check above can fail).
  expect(run(["ui"]).length).toBeGreaterThan(0);
}, 60_000);
