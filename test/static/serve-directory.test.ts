import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { createDirectoryServer, type ServeDirectoryOptions } from "../../src/static/serve-directory.ts";
import { rawGet } from "./raw-http.ts";

const SECRET = "TOP-SECRET-CONTENT";
let base: string;
let staticDir: string;
const servers: Server<unknown>[] = [];

/** A server whose only content is the directory server; anything it declines is a recognisable 404. */
function serve(opts: Partial<ServeDirectoryOptions> = {}): Server<unknown> {
  const handler = createDirectoryServer({ route: "/static", directoryPath: staticDir, ...opts });
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const response = await handler(request, new URL(request.url).pathname);
      return response ?? new Response("fallback 404", { status: 404 });
    },
  });
  servers.push(server);
  return server;
}

let plain: Server<unknown>;
let withIndex: Server<unknown>;
let listing: Server<unknown>;
let following: Server<unknown>;
let atRoot: Server<unknown>;
let dotFiles: Server<unknown>;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "webfw-static-"));
  staticDir = join(base, "public");
  mkdirSync(staticDir);
  mkdirSync(join(staticDir, "sub"));
  mkdirSync(join(staticDir, "empty-dir"));
  mkdirSync(join(base, "private"));
  writeFileSync(join(base, "secret.txt"), SECRET);
  writeFileSync(join(base, "private", "x.txt"), SECRET);
  writeFileSync(join(base, "public-sibling.txt"), SECRET); // shares the prefix "public"
  writeFileSync(join(staticDir, "index.html"), "<h1>home</h1>");
  writeFileSync(join(staticDir, "a.txt"), "file a");
  writeFileSync(join(staticDir, "style.css"), "body{}");
  writeFileSync(join(staticDir, "with space.txt"), "spaced");
  writeFileSync(join(staticDir, "ünïcode.txt"), "unicode");
  writeFileSync(join(staticDir, "<script>alert(1)<"), "");
  writeFileSync(join(staticDir, ".env"), SECRET);
  writeFileSync(join(staticDir, "sub", "b.txt"), "file b");
  writeFileSync(join(staticDir, "sub", "index.html"), "<h1>sub</h1>");
  symlinkSync(join(base, "secret.txt"), join(staticDir, "out-link.txt"));
  symlinkSync(join(base, "private"), join(staticDir, "out-dir"));
  symlinkSync(join(staticDir, "a.txt"), join(staticDir, "in-link.txt"));
  symlinkSync(join(base, "missing"), join(staticDir, "broken-link"));

  plain = serve();
  withIndex = serve({ indexFile: "index.html" });
  listing = serve({ showFilesListing: true });
  following = serve({ followLinks: true });
  atRoot = serve({ route: "/", indexFile: "index.html" });
  dotFiles = serve({ serveDotFiles: true, showFilesListing: true });
});

afterAll(() => {
  for (const server of servers) server.stop(true);
  rmSync(base, { recursive: true, force: true });
});

const url = (server: Server<unknown>, path: string) => `http://127.0.0.1:${server.port}${path}`;

describe("files below the route", () => {
  test("a file with its content type, ETag and ranges", async () => {
    const response = await fetch(url(plain, "/static/a.txt"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(response.headers.get("etag")).not.toBeNull();
    expect(await response.text()).toBe("file a");
    expect((await fetch(url(plain, "/static/style.css"))).headers.get("content-type")).toMatch(/^text\/css/);
    const partial = await fetch(url(plain, "/static/a.txt"), { headers: { range: "bytes=-1" } });
    expect(partial.status).toBe(206);
    expect(await partial.text()).toBe("a");
    const etag = response.headers.get("etag")!;
    expect((await fetch(url(plain, "/static/a.txt"), { headers: { "if-none-match": etag } })).status).toBe(
      304,
    );
  });

  test("nested files, encoded names, unicode names, merged slashes", async () => {
    expect(await (await fetch(url(plain, "/static/sub/b.txt"))).text()).toBe("file b");
    expect(await (await fetch(url(plain, "/static/with%20space.txt"))).text()).toBe("spaced");
    expect(await (await fetch(url(plain, `/static/${encodeURIComponent("ünïcode.txt")}`))).text()).toBe(
      "unicode",
    );
    expect(await (await fetch(url(plain, "/static//sub//b.txt"))).text()).toBe("file b");
    expect(await (await fetch(url(plain, "/static/%61.txt"))).text()).toBe("file a");
  });

  test("HEAD works; other methods are declined", async () => {
    const head = await fetch(url(plain, "/static/a.txt"), { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("6");
    for (const method of ["POST", "PUT", "DELETE"]) {
      const response = await fetch(url(plain, "/static/a.txt"), { method });
      expect(await response.text()).toBe("fallback 404");
    }
  });

  test("a symlink inside pointing inside is served", async () => {
    expect(await (await fetch(url(plain, "/static/in-link.txt"))).text()).toBe("file a");
  });

  test("what does not exist, or is not below the route, is declined (null)", async () => {
    for (const path of [
      "/static/nope.txt",
      "/staticx/a.txt",
      "/a.txt",
      "/static/a.txt/",
      "/static/broken-link",
      "/stat",
    ]) {
      const response = await fetch(url(plain, path));
      expect(response.status).toBe(404);
      expect(await response.text()).toBe("fallback 404");
    }
  });

  test("dot files are not served unless allowed", async () => {
    expect((await fetch(url(plain, "/static/.env"))).status).toBe(404);
    expect(await (await fetch(url(dotFiles, "/static/.env"))).text()).toBe(SECRET);
  });
});

describe("no escape from the directory", () => {
  const attempts = [
    "/static/../secret.txt",
    "/static/%2e%2e/secret.txt",
    "/static/%2E%2E/secret.txt",
    "/static/.%2e/secret.txt",
    "/static/%2e./secret.txt",
    "/static/..%2fsecret.txt",
    "/static/%2e%2e%2fsecret.txt",
    "/static/..%2Fsecret.txt",
    "/static/..%5csecret.txt",
    "/static/..%5Csecret.txt",
    "/static/..\\secret.txt",
    "/static\\..\\secret.txt",
    "/static/sub/../../secret.txt",
    "/static/sub/%2e%2e/%2e%2e/secret.txt",
    "/static/%252e%252e/secret.txt",
    "/static/a.txt%00.html",
    "/static/%00",
    "/static/..",
    "/static/%2e%2e",
    "/static/..;/secret.txt",
    "/static/%c0%ae%c0%ae/secret.txt",
    "/static/%ef%bc%8e%ef%bc%8e/secret.txt",
    "/static/../public-sibling.txt",
    "/static/%2e%2e/public-sibling.txt",
    "/static/%",
    "/static/%zz",
  ];
  const symlinkAttempts = ["/static/out-link.txt", "/static/out-dir/x.txt", "/static/out-dir/"];

  for (const path of attempts) {
    test(`${path} over the wire is 404 and never the secret`, async () => {
      for (const server of [plain, withIndex, listing, dotFiles]) {
        const response = await rawGet(server.port!, path);
        expect([400, 404]).toContain(response.status);
        expect(response.body).not.toContain(SECRET);
      }
    });

    test(`${path} given as is to the handler is declined`, async () => {
      // Every combination, so that no check hides behind another: dot files allowed (the ".."
      // rule must hold alone) and links followed (the segment rules must hold without realpath).
      for (const serveDotFiles of [false, true]) {
        for (const followLinks of [false, true]) {
          const handler = createDirectoryServer({
            route: "/static",
            directoryPath: staticDir,
            indexFile: "index.html",
            showFilesListing: true,
            serveDotFiles,
            followLinks,
          });
          const response = await handler(new Request("http://127.0.0.1/"), path);
          expect(response).toBeNull();
        }
      }
    });
  }

  for (const path of symlinkAttempts) {
    test(`${path} (symlink leading out) is 404 without followLinks`, async () => {
      for (const server of [plain, withIndex, listing, dotFiles]) {
        const response = await rawGet(server.port!, path);
        expect(response.status).toBe(404);
        expect(response.body).not.toContain(SECRET);
      }
      const handler = createDirectoryServer({
        route: "/static",
        directoryPath: staticDir,
        showFilesListing: true,
      });
      expect(await handler(new Request("http://127.0.0.1/"), path)).toBeNull();
    });
  }

  test("a symlink leading out is served only with followLinks", async () => {
    expect((await fetch(url(plain, "/static/out-link.txt"))).status).toBe(404);
    expect(await (await fetch(url(following, "/static/out-link.txt"))).text()).toBe(SECRET);
    expect(await (await fetch(url(following, "/static/out-dir/x.txt"))).text()).toBe(SECRET);
    // followLinks does not reopen "..".
    expect((await rawGet(following.port!, "/static/%2e%2e/secret.txt")).status).toBe(404);
    const handler = createDirectoryServer({ route: "/static", directoryPath: staticDir, followLinks: true });
    expect(await handler(new Request("http://x/"), "/static/../secret.txt")).toBeNull();
  });
});

describe("directories", () => {
  test("the index file is served for the route and for subdirectories", async () => {
    const response = await fetch(url(withIndex, "/static/"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await response.text()).toBe("<h1>home</h1>");
    expect(await (await fetch(url(withIndex, "/static/sub/"))).text()).toBe("<h1>sub</h1>");
  });

  test("a directory URL without its slash redirects (301) to it, query kept", async () => {
    for (const [path, location] of [
      ["/static", "/static/"],
      ["/static/sub", "/static/sub/"],
      ["/static/sub?x=1", "/static/sub/?x=1"],
    ] as const) {
      const response = await fetch(url(withIndex, path), { redirect: "manual" });
      expect(response.status).toBe(301);
      expect(response.headers.get("location")).toBe(location);
    }
  });

  test("at route /, a redirect can never become protocol-relative", async () => {
    const response = await rawGet(atRoot.port!, "//sub");
    expect(response.status).toBe(301);
    expect(response.headers.location).toBe("/sub/");
    expect(await (await fetch(url(atRoot, "/"))).text()).toBe("<h1>home</h1>");
    expect(await (await fetch(url(atRoot, "/a.txt"))).text()).toBe("file a");
  });

  test("without index file or listing a directory is declined", async () => {
    expect(await (await fetch(url(plain, "/static/"))).text()).toBe("fallback 404");
    expect(await (await fetch(url(plain, "/static/sub/"))).text()).toBe("fallback 404");
    expect(await (await fetch(url(withIndex, "/static/empty-dir/"))).text()).toBe("fallback 404");
  });

  test("the listing escapes names, encodes links, hides dot files and links leading out", async () => {
    const response = await fetch(url(listing, "/static/"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const page = await response.text();
    expect(page).toContain("<title>Index of /static/</title>");
    expect(page).toContain('<a href="sub/">sub/</a>');
    expect(page).toContain('<a href="a.txt">a.txt</a>');
    expect(page).toContain('<a href="with%20space.txt">with space.txt</a>');
    expect(page).toContain("&lt;script&gt;alert(1)&lt;");
    expect(page).not.toContain("<script>");
    expect(page).toContain("in-link.txt");
    expect(page).not.toContain(".env");
    expect(page).not.toContain("out-link");
    expect(page).not.toContain("out-dir");
    expect(page).not.toContain("broken-link");
    expect(page).not.toContain('href="../"');
    expect(page.indexOf("sub/")).toBeLessThan(page.indexOf("a.txt")); // directories first
    const sub = await (await fetch(url(listing, "/static/sub/"))).text();
    expect(sub).toContain('href="../"');
    expect(sub).toContain("b.txt");
  });

  test("the listing's escaped link fetches the odd file", async () => {
    const name = "<script>alert(1)<";
    const response = await fetch(url(listing, `/static/${encodeURIComponent(name)}`));
    expect(response.status).toBe(200);
  });
});

describe("configuration", () => {
  test("an indexFile with a path is refused at creation", () => {
    expect(() =>
      createDirectoryServer({ route: "/s", directoryPath: staticDir, indexFile: "../x.html" }),
    ).toThrow();
    expect(() => createDirectoryServer({ route: "s", directoryPath: staticDir })).toThrow();
  });

  test("a directory that does not exist is an error when it is named (at start)", () => {
    expect(() => createDirectoryServer({ route: "/s", directoryPath: join(base, "nowhere") })).toThrow(
      /serveDirectory: directory not found: .*nowhere/,
    );
    expect(() => createDirectoryServer({ route: "/s", directoryPath: join(staticDir, "a.txt") })).toThrow(
      /directory not found/,
    );
  });

  test("a trailing slash on the route is ignored", async () => {
    const handler = createDirectoryServer({ route: "/static/", directoryPath: staticDir });
    const response = await handler(new Request("http://x/static/a.txt"), "/static/a.txt");
    expect(await response!.text()).toBe("file a");
  });
});
