/**
 * `webfw build` embeds the directories the app names (serveDirectory, MustacheTemplate),
 * reports the one it cannot embed, and the executable's Workers never run the start block.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { collect, freePort, runCli, tempDir, testEnv, tryGet, waitFor } from "./helpers.ts";

const FIXTURES = join(import.meta.dir, "fixtures");
let tmp: { path: string; remove: () => void };
let binary: string;
let buildOutput: { stdout: string; stderr: string };

beforeAll(async () => {
  tmp = tempDir("build-embed");
  binary = join(tmp.path, "embed-app");
  const built = await runCli(["build", join(FIXTURES, "embed-app/app.ts"), "--outfile", binary]);
  buildOutput = built;
  if (built.code !== 0) throw new Error(`build failed: ${built.stdout}\n${built.stderr}`);
}, 120_000);
afterAll(() => tmp.remove());

describe("webfw build: directories", () => {
  test("says what it embeds and what it cannot", () => {
    expect(buildOutput.stdout).toMatch(/embedding .*embed-app\/templates \(MustacheTemplate\): 1 files/);
    expect(buildOutput.stdout).toMatch(/embedding .*embed-app\/public \(serveDirectory\): 2 files/);
    expect(buildOutput.stderr).toMatch(/NOT embedding .*embed-outside: outside .*embed-app/);
  });

  test("the executable serves its templates and static files from anywhere, Workers do not run the start block", async () => {
    const port = freePort();
    // Run from an empty folder: nothing can come from the source tree by a relative path.
    const proc = Bun.spawn([binary, "--port", String(port), "--workers", "2"], {
      cwd: tmp.path,
      env: testEnv({ EMBED_OUTSIDE: join(FIXTURES, "embed-outside") }),
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = collect(proc.stdout as ReadableStream<Uint8Array>);
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitFor(() => tryGet(`${base}/page`), 20_000, "the executable to listen");
      const page = await fetch(`${base}/page`);
      expect([page.status, await page.text()]).toEqual([200, "<p>hello from an embedded template</p>\n"]);
      const css = await fetch(`${base}/static/css/site.css`);
      const cssOnDisk = await Bun.file(join(FIXTURES, "embed-app/public/css/site.css")).text();
      expect([css.status, await css.text()]).toEqual([200, cssOnDisk]);
      const index = await fetch(`${base}/static/`);
      expect([index.status, await index.text()]).toEqual([200, "<h1>embedded index</h1>\n"]);
      // Outside the app's folder: read from disk at run time, as the build said.
      const outside = await fetch(`${base}/outside/note.txt`);
      expect([outside.status, await outside.text()]).toEqual([200, "outside\n"]);
      const thread = await (await fetch(`${base}/thread`)).json();
      expect(thread).toEqual({ main: false });
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
    await out.done;
    const lines = out
      .text()
      .split("\n")
      .filter((line) => line.startsWith("start block ran"));
    expect(lines).toEqual(["start block ran (main thread: true)"]);
  }, 60_000);

  test("a directory missing at start is an error that names it", async () => {
    const missing = join(tmp.path, "no-templates-here");
    const proc = Bun.spawn([process.execPath, join(FIXTURES, "embed-app/app.ts"), "--port", "0"], {
      env: testEnv({ EMBED_TEMPLATES: missing }),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/MustacheTemplate: directory not found: .*no-templates-here/);
  }, 30_000);
});
