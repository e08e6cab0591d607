/**
 * Issue 31, the parts of "writes under a binary's embedded root" that do not need a binary
 * (test/launch/run-modes.test.ts builds one): `appDir` from source and for embedded paths, and
 * `part.saveTo()` refusing a `/$bunfs/` target over real HTTP, leaving nothing on the real disk.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { embeddedRootWrites } from "../../src/embed/embedded-writes.ts";
import { appDir, type ServerHandle, Webfw } from "../../src/index.ts";

describe("appDir", () => {
  test("from source: the folder given", () => {
    expect(appDir(import.meta.dir)).toBe(import.meta.dir);
  });

  test("an embedded folder: the executable's folder, plus the module's place below the root", () => {
    const binaryDir = dirname(process.execPath);
    expect(appDir("/$bunfs/root")).toBe(binaryDir);
    expect(appDir("/$bunfs/root/src/db")).toBe(join(binaryDir, "src/db"));
    expect(appDir("B:/~BUN/root/src")).toBe(join(binaryDir, "src"));
  });
});

describe("part.saveTo() under /$bunfs", () => {
  let server: ServerHandle;
  const target = `/$bunfs/root/webfw-upload-${process.pid}.bin`;
  beforeAll(async () => {
    const app = new Webfw(import.meta.path);
    app.post(
      "/upload",
      async (request) => {
        for await (const part of request.parts()) await part.saveTo(target);
        return "saved";
      },
      { body: "stream" },
    );
    app.exception((error) => [String((error as Error).message), 500] as const);
    server = await app.start({ port: 0, handleSignals: false, accessLog: false, argv: [] });
  });
  afterAll(() => server.stop());

  test("is refused with a message that names the path and the way out; nothing is written", async () => {
    const form = new FormData();
    form.append("file", new Blob(["0123456789"]), "digits.txt");
    const response = await fetch(`${server.url}/upload`, { method: "POST", body: form });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).toContain(`saveTo: refusing to write ${target}`);
    expect(text).toContain("appDir(import.meta.dir)");
    expect(existsSync(`/${target}`)).toBe(false);
    expect(embeddedRootWrites()).not.toContain(target);
  });
});
