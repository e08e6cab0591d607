/**
 * `/docs` inside a `bun build --compile` binary: Swagger UI's files are
 * embedded (imported `with { type: "file" }`), so the binary serves them from
 * a directory with no node_modules.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "webfw-openapi-bin-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a compiled binary serves /openapi.json, /docs and every asset", async () => {
  const binary = join(dir, "bookshelf");
  const build = Bun.spawnSync(
    [
      process.execPath,
      "build",
      "--compile",
      join(import.meta.dir, "../../examples/openapi-app.ts"),
      "--outfile",
      binary,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  expect(build.stderr.toString()).not.toContain("error");
  expect(build.exitCode).toBe(0);

  const child = Bun.spawn([binary], {
    cwd: dir,
    env: { ...process.env, WEBFW_PORT: "0", WEBFW_HOST: "127.0.0.1" },
    stdout: "pipe",
    stderr: "inherit",
  });
  try {
    const base = await listeningUrl(child.stdout);
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { info: { title: string } };
    expect(doc.info.title).toBe("Bookshelf API");
    const page = await fetch(`${base}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(assets.length).toBeGreaterThanOrEqual(5);
    for (const asset of assets) {
      const response = await fetch(`${base}${asset}`);
      expect(response.status).toBe(200);
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    const bundle = await (await fetch(`${base}/docs/assets/swagger-ui-bundle.js`)).text();
    expect(bundle).toContain("SwaggerUIBundle");
  } finally {
    child.kill();
    await child.exited;
  }
}, 120_000);

/** Reads the child's output until it prints its URL. */
async function listeningUrl(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
    const match = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
    if (match) {
      reader.releaseLock();
      return match[1] as string;
    }
  }
  throw new Error(`the binary never said where it listens; output: ${seen}`);
}
