/**
 * examples/typed-client: a plain-TypeScript front end calling a webfw API through
 * `webfw/client`. The same calls from Bun; the page bundled by the `bun build` command
 * line with no server code in it; and the page in a real browser (Debian's Chromium
 * through playwright-core): add, validation error, delete, and the SSE change feed
 * read over fetch. Without /usr/bin/chromium the browser test is skipped with a
 * reason (and fails under CI=true).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import * as example from "../../examples/typed-client/server.ts";
import { client } from "../../src/client/index.ts";
import type { ServerHandle } from "../../src/index.ts";
import { startQuiet } from "../helpers/quiet-server.ts";
import { testWithProgram } from "../helpers/system-program.ts";

const CHROMIUM = "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
];
const REPO = join(import.meta.dir, "../..");

let server: ServerHandle;
beforeAll(async () => {
  server = await startQuiet(example.app);
});
afterAll(() => server.stop(true));

describe("examples/typed-client", () => {
  test("the API through the typed client from Bun", async () => {
    const api = client<typeof example>(server.url);
    const created = await api.post("/api/notes", { body: { title: "  from bun  " } });
    if (!created.ok) throw new Error(`${created.status} ${created.message}`);
    expect(created.status).toBe(201);
    expect(created.data.title).toBe("from bun");
    expect(Number.isNaN(Date.parse(created.data.createdAt))).toBe(false);

    const invalid = await api.post("/api/notes", { body: { title: "   " } });
    expect(invalid.status).toBe(422);
    expect(!invalid.ok && invalid.status === 422 && invalid.issues[0]?.message).toBe("a note needs a title");

    const badId = await api.get("/api/notes/:id", { params: { id: 0 } });
    expect(badId.status).toBe(400);
    const missing = await api.delete("/api/notes/:id", { params: { id: 999 } });
    expect([missing.status, !missing.ok && missing.message]).toEqual([404, "no note 999"]);

    const deleted = await api.delete("/api/notes/:id", { params: { id: created.data.id } });
    expect(deleted.status).toBe(204);
  });

  test("the editing socket: schema-typed messages, checked on the server", async () => {
    const api = client<typeof example>(server.url);
    const socket = api.ws("/api/notes/editing");
    await socket.send({ name: "  ada " });
    const first = await socket.receive();
    expect(first?.editors).toEqual({ ada: null });
    await socket.send({ name: "ada", note: 3 });
    expect((await socket.receive())?.editors).toEqual({ ada: 3 });
    // A message past the types (note 0 is not a note id): closed with 1007 naming the field.
    socket.socket.send(JSON.stringify({ name: "ada", note: 0 }));
    const closed = await socket.closed;
    expect(closed.code).toBe(1007);
    expect(closed.reason).toStartWith("invalid message: note: ");
  });

  test("`bun build --target browser` bundles the page without any server code", async () => {
    const out = mkdtempSync(join(tmpdir(), "webfw-typed-client-"));
    try {
      const proc = Bun.spawn(
        [
          process.execPath,
          "build",
          join(REPO, "examples/typed-client/web/main.ts"),
          "--target",
          "browser",
          "--minify",
          "--outdir",
          out,
        ],
        { stdout: "pipe", stderr: "pipe" },
      );
      const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      expect(stderr).not.toContain("error");
      expect(code).toBe(0);
      const files = readdirSync(out);
      expect(files).toEqual(["main.js"]);
      const bundle = readFileSync(join(out, "main.js"), "utf8");
      // The server (webfw, zod, node: and bun: modules) was imported only as types.
      for (const serverOnly of ["node:", "bun:", "Bun.serve", "HttpError", "ZodError", "SubRouter"]) {
        expect(bundle).not.toContain(serverOnly);
      }
      expect(bundle.length).toBeLessThan(20_000);
      expect(bundle).toContain("/api/notes");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);

  testWithProgram(
    CHROMIUM,
    "apt-get install -y chromium",
    "the page in Chromium: add, a validation error, the live feed, delete",
    async () => {
      if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install -y chromium)`);
      const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
      try {
        const page = await browser.newPage();
        const pageErrors: string[] = [];
        page.on("pageerror", (error) => pageErrors.push(String(error)));
        await page.goto(`${server.url}/`);
        await page.waitForFunction(() => document.querySelector("#live")?.textContent === "live: on", null, {
          timeout: 20_000,
        });

        await page.fill("input[name=title]", "written in the browser");
        await page.click("button:text('Add')");
        await page.waitForSelector("li:has-text('written in the browser')", { timeout: 10_000 });

        await page.fill("input[name=title]", "   ");
        await page.click("button:text('Add')");
        await page.waitForFunction(
          () => document.querySelector("#error")?.textContent === "a note needs a title",
          null,
          { timeout: 10_000 },
        );

        // A change made elsewhere arrives through the SSE feed the page reads with the typed client.
        const api = client<typeof example>(server.url);
        const elsewhere = await api.post("/api/notes", { body: { title: "from another client" } });
        expect(elsewhere.ok).toBe(true);
        await page.waitForSelector("li:has-text('from another client')", { timeout: 10_000 });
        expect(await page.textContent("#live")).toContain('last created "from another client"');

        await page.click("li:has-text('written in the browser') button");
        await page.waitForSelector("li:has-text('written in the browser')", {
          state: "detached",
          timeout: 10_000,
        });
        const listed = await api.get("/api/notes");
        expect(listed.ok && listed.data.map((note) => note.title)).toEqual(["from another client"]);
        expect(pageErrors).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    90_000,
  );
});
