import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveFile, Webfw } from "../../src/index.ts";

describe("serveFile({ root })", () => {
  let base: string;
  let app: Webfw;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), "webfw-root-"));
    mkdirSync(join(base, "public"));
    writeFileSync(join(base, "public", "ok.txt"), "inside");
    writeFileSync(join(base, "secret.txt"), "outside");
    symlinkSync(join(base, "secret.txt"), join(base, "public", "link.txt"));
    app = new Webfw(import.meta.path);
    app.get("/files/*name", ({ pathParams }) => serveFile(pathParams.name, { root: join(base, "public") }));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  test("a file inside the root is served", async () => {
    const response = await app.request("/files/ok.txt");
    expect([response.status, await response.text()]).toEqual([200, "inside"]);
  });

  test("decoded traversal, absolute paths and symlinks out of the root are 404", async () => {
    for (const path of [
      "/files/..%2Fsecret.txt",
      "/files/%2E%2E/secret.txt",
      "/files/link.txt",
      `/files/${encodeURIComponent(join(base, "secret.txt"))}`,
    ]) {
      const response = await app.request(path);
      expect([path, response.status]).toEqual([path, 404]);
    }
  });
});
