/**
 * Secure headers and cross-site request protection in a real browser (Debian's Chromium driven
 * by playwright-core): a nonce'd inline script runs while injected ones (no nonce, a wrong one)
 * are blocked; `/docs` (Swagger UI) renders under the default policy; the example's own form
 * posts, while a page of another origin (a second server on another port) posting a form or
 * calling `fetch` with credentials is refused; curl (no browser headers) still works.
 *
 * Needs `/usr/bin/chromium`; skipped with the reason printed without it, failing under CI=true.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Server } from "bun";
import type { Browser } from "playwright-core";
import example from "../../examples/secure-headers.ts";
import { html, type ServerHandle, Webfw } from "../../src/index.ts";
import { describeWithChromium, launchChromium } from "../helpers/chromium.ts";
import { curl } from "../helpers/tls.ts";

describeWithChromium("secure headers in Chromium", () => {
  let browser: Browser;
  let app: ServerHandle;
  let pages: ServerHandle;
  let attacker: Server<unknown>;

  beforeAll(async () => {
    browser = await launchChromium();
    app = await example.start({ port: 0, host: "127.0.0.1" });
    const scripts = new Webfw(import.meta.path, { secureHeaders: true });
    scripts.get("/", (request) =>
      html(`<!doctype html><title>scripts</title>
<script nonce="${request.cspNonce}">window.withNonce = true;</script>
<script>window.injected = true;</script>
<script nonce="AAAAAAAAAAAAAAAAAAAAAA">window.wrongNonce = true;</script>
<img src="x" onerror="window.inlineHandler = true">`),
    );
    scripts.get("/api/books", () => [{ id: 1 }], { summary: "Books" });
    scripts.post("/api/books", () => ({ id: 2 }), { summary: "Add a book" });
    pages = await scripts.start({ port: 0, host: "127.0.0.1" });
    // Another origin: `localhost` is another site than `127.0.0.1` (Sec-Fetch-Site: cross-site).
    attacker = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () =>
        new Response(
          `<!doctype html><title>elsewhere</title>
<form id="f" method="post" action="${app.url}/notes"><input name="text" value="forged"></form>
<script>
window.fetchResult = fetch("${app.url}/notes", { method: "POST", credentials: "include", mode: "no-cors",
  headers: { "content-type": "application/x-www-form-urlencoded" }, body: "text=fetched" })
  .then(() => "sent", (e) => "error " + e);
</script>`,
          { headers: { "content-type": "text/html" } },
        ),
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop(true);
    await pages?.stop(true);
    attacker?.stop(true);
  });

  test("a nonce'd inline script runs; injected ones are blocked and reported", async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on("console", (message) => {
      if (message.text().includes("Content Security Policy")) violations.push(message.text());
    });
    await page.goto(`${pages.url}/`);
    await page.waitForLoadState("load");
    const flags = await page.evaluate(() => {
      const w = window as unknown as Record<string, unknown>;
      return [w.withNonce, w.injected, w.wrongNonce, w.inlineHandler];
    });
    expect(flags).toEqual([true, undefined, undefined, undefined]);
    expect(violations.length).toBeGreaterThanOrEqual(2);
    await page.close();
  });

  test("/docs (Swagger UI) renders under the default policy", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(String(error)));
    page.on("console", (message) => {
      if (message.text().includes("Content Security Policy")) problems.push(message.text());
    });
    const response = await page.goto(`${pages.url}/docs`);
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.waitForSelector(".opblock", { timeout: 20_000 });
    expect(await page.$$eval(".opblock", (blocks) => blocks.length)).toBe(3);
    expect(problems).toEqual([]);
    await page.close();
  });

  test("the example: its inline script runs and its own form posts", async () => {
    const page = await browser.newPage();
    await page.goto(`${app.url}/`);
    expect(await page.textContent("#status")).toBe("inline script ran");
    await page.fill("input[name=text]", "mine");
    await Promise.all([page.waitForURL(`${app.url}/`), page.click("button")]);
    expect(await page.textContent("#notes")).toContain("mine");
    await page.close();
  });

  test("another origin's form and credentialed fetch are refused", async () => {
    const before = (await (await fetch(`${app.url}/notes.json`)).json()) as string[];
    const page = await browser.newPage();
    const statuses: number[] = [];
    page.on("response", (response) => {
      if (response.url() === `${app.url}/notes`) statuses.push(response.status());
    });
    await page.goto(`http://localhost:${attacker.port}/`);
    // The fetch reaches the server (its 403 is then unreadable to the page: CORP same-origin).
    await page.evaluate(() => (window as unknown as { fetchResult: Promise<string> }).fetchResult);
    expect((await (await fetch(`${app.url}/notes.json`)).json()) as string[]).toEqual(before);
    await Promise.all([
      page.waitForURL(`${app.url}/notes`),
      page.evaluate(() => document.forms[0]?.submit()),
    ]);
    expect(statuses).toContain(403);
    expect(await page.textContent("body")).toContain("Cross-site request refused");
    const after = (await (await fetch(`${app.url}/notes.json`)).json()) as string[];
    expect(after).toEqual(before);
    await page.close();
  });

  test("curl, which sends neither Origin nor Sec-Fetch-Site, posts", async () => {
    const result = await curl(`${app.url}/notes`, ["-X", "POST", "--data", "text=from-curl"]);
    expect(result.status).toBe(303);
    expect((await (await fetch(`${app.url}/notes.json`)).json()) as string[]).toContain("from-curl");
  });
});
