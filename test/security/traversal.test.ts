/**
 * Path traversal through the whole app (`app.serveDirectory` behind each
 * router engine, at a prefix and at `/`), over raw TCP so that nothing
 * normalises the path first. test/static/serve-directory.test.ts covers the
 * directory server alone; this adds the engines, absolute-form targets, more
 * encodings, symlink loops and `serveFile`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServerHandle, serveFile, Webfw } from "../../src/index.ts";
import type { RouterEngine } from "../../src/match/types.ts";
import { Results, startQuiet } from "./helpers.ts";
import { rawExchange, rawGet } from "./raw-client.ts";

const SECRET = "TRAVERSAL-SECRET-7f3a";
const ENGINES: RouterEngine[] = ["bun", "js", "ffi"];
const results = new Results("traversal");

let base: string;
let publicDir: string;
const servers: { engine: RouterEngine; route: string; handle: ServerHandle }[] = [];

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), "webfw-traversal-"));
  publicDir = join(base, "public");
  mkdirSync(join(publicDir, "sub"), { recursive: true });
  mkdirSync(join(base, "private"));
  writeFileSync(join(base, "secret.txt"), SECRET);
  writeFileSync(join(base, "private", "key.txt"), SECRET);
  writeFileSync(join(base, "publicity.txt"), SECRET); // shares the prefix "public"
  writeFileSync(join(publicDir, "hello.txt"), "hello");
  writeFileSync(join(publicDir, "sub", "inner.txt"), "inner");
  writeFileSync(join(publicDir, ".env"), SECRET);
  symlinkSync(join(base, "secret.txt"), join(publicDir, "link-out.txt"));
  symlinkSync(join(base, "private"), join(publicDir, "dir-out"));
  symlinkSync(join(publicDir, "loop-a"), join(publicDir, "loop-b"));
  symlinkSync(join(publicDir, "loop-b"), join(publicDir, "loop-a"));
  symlinkSync("..", join(publicDir, "sub", "up"));

  for (const engine of ENGINES) {
    for (const route of ["/static", "/"]) {
      const app = new Webfw(import.meta.path, { router: engine });
      app.get("/api/ping", () => "pong");
      app.get("/report", () => serveFile(join(publicDir, "hello.txt")));
      app.serveDirectory({ route, directoryPath: publicDir, showFilesListing: true });
      servers.push({ engine, route, handle: await startQuiet(app) });
    }
  }
});

afterAll(async () => {
  for (const s of servers) await s.handle.stop(true);
  rmSync(base, { recursive: true, force: true });
  results.write();
});

/** Attempts written relative to the mount: `@` is replaced by the route (`/static` or ``). */
const ATTEMPTS = [
  "@/../secret.txt",
  "@/../../../../../../etc/passwd",
  "@/%2e%2e/secret.txt",
  "@/%2E%2e/secret.txt",
  "@/.%2e/secret.txt",
  "@/%2e./secret.txt",
  "@/%252e%252e/secret.txt",
  "@/%25252e%25252e/secret.txt",
  "@/..%2fsecret.txt",
  "@/..%2Fsecret.txt",
  "@/%2e%2e%2fsecret.txt",
  "@/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "@/..%252fsecret.txt",
  "@/..%5csecret.txt",
  "@/..%5Csecret.txt",
  "@/..\\secret.txt",
  "@/%5c..%5csecret.txt",
  "@/hello.txt%00",
  "@/hello.txt%00.html",
  "@/%00../secret.txt",
  "@/%c0%ae%c0%ae/secret.txt",
  "@/%c0%ae%c0%ae%c0%afsecret.txt",
  "@/%e0%80%ae%e0%80%ae/secret.txt",
  "@/%c1%9c..%c1%9csecret.txt",
  "@/%ef%bc%8e%ef%bc%8e/secret.txt",
  "@/..;/secret.txt",
  "@/sub/../../secret.txt",
  "@/sub/%2e%2e/%2e%2e/secret.txt",
  "@/./../secret.txt",
  "@//../secret.txt",
  "@/%2fetc%2fpasswd",
  "@//etc/passwd",
  "@/..",
  "@/%2e%2e",
  "@/../publicity.txt",
  "@/.env",
  "@/%2eenv",
  "@/link-out.txt",
  "@/dir-out/key.txt",
  "@/dir-out/",
  "@/sub/up/secret.txt",
  "@/sub/up/../secret.txt",
  "@/loop-a",
  "@/loop-a/x",
];

const ROOT_ALIASES = new Set(["@/..", "@/%2e%2e"]);
const bodyOf = (reply: { body: string; raw: string }) => reply.raw;

describe("serveDirectory: no request reaches a file outside the directory", () => {
  for (const attempt of ATTEMPTS) {
    test(attempt, async () => {
      const outcomes = new Set<number>();
      for (const { engine, route, handle } of servers) {
        const path = attempt.replace("@", route === "/" ? "" : route);
        for (const method of ["GET", "HEAD"]) {
          const reply = await rawExchange(
            handle.port,
            `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
          );
          outcomes.add(reply.status);
          expect(bodyOf(reply)).not.toContain(SECRET);
          // 404 (declined), 400 (malformed escape), or Bun's own 400/505 for bytes it refuses; never 5xx from webfw.
          // `/..` is resolved by Bun to `/`: at a mount on `/` that is the directory's own listing, nothing above it.
          if (reply.status === 200) {
            expect(ROOT_ALIASES.has(attempt) && route === "/").toBe(true);
            if (method === "GET") expect(reply.body).toContain("hello.txt");
          } else expect([400, 404, 505, 0]).toContain(reply.status);
          if (reply.status === 0) expect(reply.closed).toBe(true);
          if (engine === "bun" && reply.status === 505) expect(reply.body).toBe("");
        }
      }
      results.add({
        group: "serveDirectory traversal",
        input: attempt.replace("@", "/static"),
        outcome: [...outcomes].sort().join("/"),
        survived: true,
      });
    });
  }

  test("absolute-form targets cannot smuggle '..' past the route", async () => {
    for (const { handle } of servers) {
      for (const target of [
        "http://127.0.0.1/static/../secret.txt",
        "http://127.0.0.1/../secret.txt",
        "http://x/%2e%2e/secret.txt",
      ]) {
        const reply = await rawExchange(
          handle.port,
          `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
        );
        expect(reply.raw).not.toContain(SECRET);
        expect(reply.status).not.toBe(200);
      }
    }
  });

  test("a path of 5000 segments is refused without walking the disk", async () => {
    for (const { handle } of servers) {
      const reply = await rawGet(handle.port, `/static/${"a/".repeat(5000)}x`);
      expect([404, 414, 431]).toContain(reply.status);
    }
  });

  test("the same servers do serve what is inside (the attempts above were refused, not broken)", async () => {
    for (const { route, handle } of servers) {
      const prefix = route === "/" ? "" : route;
      const hello = await rawGet(handle.port, `${prefix}/hello.txt`);
      expect(hello.status).toBe(200);
      expect(hello.body).toBe("hello");
      const inner = await rawGet(handle.port, `${prefix}/sub/%69nner.txt`);
      expect(inner.body).toBe("inner");
      const listing = await rawGet(handle.port, `${prefix}/`);
      expect(listing.status).toBe(200);
      expect(listing.body).toContain("hello.txt");
      expect(listing.body).not.toContain("link-out");
      expect(listing.body).not.toContain(".env");
      expect((await rawGet(handle.port, "/api/ping")).body).toBe("pong");
    }
  });
});

describe("serveFile", () => {
  test("a fixed path: nothing in the URL or headers changes which file is sent", async () => {
    for (const { handle } of servers) {
      for (const path of [
        "/report",
        "/report/",
        "/report/../secret.txt",
        "/report%2f..%2fsecret.txt",
        "/report?path=../secret.txt",
      ]) {
        const reply = await rawGet(handle.port, path, "Range: bytes=0-100\r\n");
        expect(reply.raw).not.toContain(SECRET);
      }
      const ok = await rawGet(handle.port, "/report");
      expect(ok.status).toBe(200);
      expect(ok.body).toBe("hello");
    }
  });

  test("path parameters arrive decoded: '%2F' is a '/' and '..' survives, so never join one into a file path", async () => {
    // What docs/security.md warns about: `serveFile(join(dir, pathParams.name))` would escape.
    const app = new Webfw(import.meta.path);
    app.get("/download/:name", ({ pathParams }) => ({ name: pathParams.name }));
    const handle = await startQuiet(app);
    try {
      const reply = await rawGet(handle.port, "/download/..%2F..%2Fetc%2Fpasswd");
      expect(JSON.parse(reply.body)).toEqual({ name: "../../etc/passwd" });
    } finally {
      await handle.stop(true);
    }
  });
});
