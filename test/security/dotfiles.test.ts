/**
 * Finding 6 of issue #13: dot files and symlinks are judged by the resolved
 * real path, not by the name in the URL. A symlink inside a served directory
 * that points at `.env` (or into `.git`), and `serveFile(name, { root })`
 * asked for `.env` or `.git/config`, are 404 and never listed, unless the app
 * says `dotFiles: "allow"`. Over raw sockets, on every engine.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServerHandle, serveFile, Webfw } from "../../src/index.ts";
import type { RouterEngine } from "../../src/match/types.ts";
import { Results, startQuiet } from "./helpers.ts";
import { rawGet } from "./raw-client.ts";

const results = new Results("dotfiles");
const base = mkdtempSync(join(tmpdir(), "webfw-dotfiles-"));
const site = join(base, "site");
const secret = "SECRET=hunter2";

beforeAll(() => {
  mkdirSync(join(site, "public", "sub"), { recursive: true });
  mkdirSync(join(site, ".git"), { recursive: true });
  writeFileSync(join(site, ".env"), secret);
  writeFileSync(join(site, ".git", "config"), `[core] ${secret}`);
  writeFileSync(join(site, "public", "ok.txt"), "fine");
  writeFileSync(join(site, "public", ".hidden"), secret);
  // Links with innocent names whose targets are dot files, inside and outside the served root.
  symlinkSync(join(site, ".env"), join(site, "public", "config.txt"));
  symlinkSync(join(site, ".git"), join(site, "public", "repo"));
  symlinkSync(join(site, "public", ".hidden"), join(site, "public", "sub", "innocent.txt"));
  mkdirSync(join(site, "downloads", ".git"), { recursive: true });
  writeFileSync(join(site, "downloads", ".env"), secret);
  writeFileSync(join(site, "downloads", ".git", "config"), secret);
  writeFileSync(join(site, "downloads", "report.txt"), "report");
  symlinkSync(join(site, "downloads", ".env"), join(site, "downloads", "env-link.txt"));
});

afterAll(() => {
  results.write();
  rmSync(base, { recursive: true, force: true });
});

function makeApp(engine: RouterEngine, allow: boolean): Webfw {
  const app = new Webfw(import.meta.path, { router: engine, openapi: false });
  app.serveDirectory({
    route: "/static",
    directoryPath: join(site, "public"),
    showFilesListing: true,
    followLinks: true,
    ...(allow ? { dotFiles: "allow" as const } : {}),
  });
  app.get("/downloads/*name", ({ pathParams }) =>
    serveFile(pathParams.name, {
      root: join(site, "downloads"),
      ...(allow ? { dotFiles: "allow" as const } : {}),
    }),
  );
  return app;
}

for (const engine of ["bun", "js", "ffi"] as RouterEngine[]) {
  describe(`dot files by real path (${engine})`, () => {
    let handle: ServerHandle;
    beforeAll(async () => {
      handle = await startQuiet(makeApp(engine, false));
    });
    afterAll(async () => {
      await handle.stop(true);
    });
    const refused = [
      "/static/.hidden",
      "/static/config.txt",
      "/static/repo/config",
      "/static/sub/innocent.txt",
      "/static/%2ehidden",
      "/downloads/.env",
      "/downloads/.git/config",
      "/downloads/%2eenv",
      "/downloads/env-link.txt",
    ];
    for (const path of refused) {
      test(`${path} is 404`, async () => {
        const reply = await rawGet(handle.port, path);
        results.add({ group: `dot files (${engine})`, input: path, outcome: String(reply.status) });
        expect(reply.status).toBe(404);
        expect(reply.body).not.toContain("SECRET");
      });
    }
    test("ordinary files are served", async () => {
      expect((await rawGet(handle.port, "/static/ok.txt")).body).toBe("fine");
      expect((await rawGet(handle.port, "/downloads/report.txt")).body).toBe("report");
    });
    test("listings agree with what is served", async () => {
      const listing = await rawGet(handle.port, "/static/");
      expect(listing.status).toBe(200);
      expect(listing.body).toContain("ok.txt");
      expect(listing.body).not.toContain("config.txt");
      expect(listing.body).not.toContain(">repo/");
      expect(listing.body).not.toContain(".hidden");
      const sub = await rawGet(handle.port, "/static/sub/");
      expect(sub.body).not.toContain("innocent.txt");
    });
  });
}

describe('dotFiles: "allow" serves them, explicitly', () => {
  let handle: ServerHandle;
  beforeAll(async () => {
    handle = await startQuiet(makeApp("bun", true));
  });
  afterAll(async () => {
    await handle.stop(true);
  });
  test("through links and by name", async () => {
    expect((await rawGet(handle.port, "/static/config.txt")).body).toBe(secret);
    expect((await rawGet(handle.port, "/static/.hidden")).body).toBe(secret);
    expect((await rawGet(handle.port, "/downloads/.env")).body).toBe(secret);
    expect((await rawGet(handle.port, "/downloads/env-link.txt")).body).toBe(secret);
    const listing = await rawGet(handle.port, "/static/");
    expect(listing.body).toContain("config.txt");
  });
});
