/**
 * `/docs` in a real browser: Debian's Chromium driven by playwright-core.
 * Every documented route is listed, nothing is fetched from outside the app
 * (the page must work offline), and "Try it out" → "Execute" on a GET route
 * shows the real response of the running server.
 *
 * Needs `/usr/bin/chromium` (Debian package `chromium`); without it the suite
 * is skipped with the reason printed, and fails under CI=true. `UPDATE_SCREENSHOTS=1` rewrites docs/images/openapi-docs.png.
 */

import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import app from "../../examples/openapi-app.ts";
import type { ServerHandle } from "../../src/index.ts";
import { CHROMIUM, describeWithChromium, launchChromium, offlinePage } from "../helpers/chromium.ts";
import type { Json } from "./helpers.ts";

describeWithChromium("/docs in Chromium", () => {
  let server: ServerHandle;
  let browser: Browser;
  let page: Page;
  /** Every URL the page asked for that is not the app itself. */
  let outside: string[] = [];
  let pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `${CHROMIUM} is missing: the /docs browser test needs Debian's Chromium (apt-get install -y chromium)`,
      );
    }
    server = await app.start({ port: 0, host: "127.0.0.1" });
    browser = await launchChromium();
    ({ page, outside, pageErrors } = await offlinePage(browser, [`${server.url}/`], {
      width: 1280,
      height: 900,
    }));
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector(".opblock", { timeout: 20_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop(true);
  });

  test("renders from the app's own assets, with no outside request and no script error", async () => {
    expect(await page.title()).toBe("Bookshelf API");
    expect(await page.textContent(".info .title")).toContain("Bookshelf API");
    expect(outside).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  test("every documented route is listed, and only those", async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Json;
    const expected = Object.entries(doc.paths as Record<string, Json>)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(expected.length).toBe(6);
    const listed = await page.$$eval(".opblock .opblock-summary", (summaries) =>
      summaries.map((summary) => {
        const method = summary.querySelector(".opblock-summary-method")?.textContent ?? "";
        const path = summary.querySelector("[data-path]")?.getAttribute("data-path") ?? "";
        return `${method} ${path}`;
      }),
    );
    expect(listed.sort()).toEqual(expected);
    expect(listed).not.toContain("GET /internal/stats");
    // Sub-router prefixes and tags group the operations.
    const sections = await page.$$eval(".opblock-tag", (tags) =>
      tags.map((tag) => tag.getAttribute("data-tag")),
    );
    expect(sections.sort()).toEqual(["books", "meta"]);
    expect(await page.locator("#operations-books-delete_books_id.opblock-deprecated").count()).toBe(1);
  });

  test('"Try it out" → "Execute" on GET /books/{id} shows the real response', async () => {
    const operation = page.locator("#operations-books-get_books_id");
    await operation.locator(".opblock-summary").click();
    await operation.locator("button.try-out__btn").click();
    await operation.locator('tr[data-param-name="id"] input').fill("2");
    await operation.locator("button.execute").click();
    const body = operation.locator(".live-responses-table .response-col_description pre").first();
    await body.waitFor({ timeout: 10_000 });
    const text = (await body.textContent()) ?? "";
    // Only the running server knows this book.
    expect(JSON.parse(text)).toEqual({
      id: 2,
      title: "The Left Hand of Darkness",
      author: "Ursula K. Le Guin",
      year: 1969,
    });
    const status = await operation
      .locator(".live-responses-table .response .response-col_status")
      .first()
      .textContent();
    expect(status?.trim()).toBe("200");
    expect(await operation.locator(".request-url pre").textContent()).toBe(`${server.url}/books/2`);

    await page.screenshot({ path: screenshotPath(), fullPage: true });
  });
});

function screenshotPath(): string {
  return process.env.UPDATE_SCREENSHOTS === "1"
    ? join(import.meta.dir, "../../docs/images/openapi-docs.png")
    : join(process.env.TMPDIR ?? "/tmp", "webfw-openapi-docs.png");
}
