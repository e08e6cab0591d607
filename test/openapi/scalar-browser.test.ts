/**
 * `/docs` with `openapi: { docsUi: "scalar" }` in a real browser (Debian's Chromium
 * driven by playwright-core): Scalar's API reference renders from the app's own
 * assets, no request leaves 127.0.0.1, every documented route is listed and the
 * declared response contract shows as the 200 example (examples/response-contracts.ts).
 *
 * Needs `/usr/bin/chromium`; without it the suite is skipped with the reason printed, and
 * fails under CI=true. `UPDATE_SCREENSHOTS=1` rewrites docs/images/openapi-scalar.png.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import app from "../../examples/response-contracts.ts";
import type { ServerHandle } from "../../src/index.ts";
import { SCALAR_ASSET_NAMES } from "../../src/openapi/scalar.ts";
import { describeWithChromium, launchChromium, offlinePage } from "../helpers/chromium.ts";
import type { Json } from "./helpers.ts";

describeWithChromium("Scalar /docs in Chromium", () => {
  let server: ServerHandle;
  let browser: Browser;
  let page: Page;
  /** Every URL the page asked for that is not the app itself (127.0.0.1). */
  let outside: string[] = [];
  let pageErrors: string[] = [];

  beforeAll(async () => {
    server = await app.start({ port: 0, host: "127.0.0.1" });
    browser = await launchChromium();
    ({ page, outside, pageErrors } = await offlinePage(browser, [`${server.url}/`], {
      width: 1280,
      height: 900,
    }));
    await page.goto(`${server.url}/docs`);
    await page.getByText("/lenient").first().waitFor({ timeout: 30_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop(true);
  });

  test("the page is Scalar's, from the app's own assets, with no outside request and no script error", async () => {
    const html = await (await fetch(`${server.url}/docs`)).text();
    for (const name of SCALAR_ASSET_NAMES) expect(html).toContain(`/docs/assets/${name}`);
    expect(html).not.toContain("swagger");
    expect(await page.title()).toBe("Users API");
    expect(outside).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  test("every documented route is listed", async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Json;
    const paths = Object.keys(doc.paths as Json);
    expect(paths.length).toBe(5);
    const sidebar = (await page.locator("body").textContent()) ?? "";
    for (const path of paths) expect(sidebar).toContain(path);
  });

  test("the 200 example is the declared contract: no password hash", async () => {
    const text = (await page.locator("body").textContent()) ?? "";
    expect(text).toContain('"roles"');
    expect(text).not.toContain("passwordHash");
    await page.screenshot({ path: screenshotPath() });
  });

  test("the bundle revalidates with its version as the ETag", async () => {
    const first = await fetch(`${server.url}/docs/assets/scalar-standalone.js`);
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag") ?? "";
    expect(etag).toMatch(/^"scalar-\d+\.\d+\.\d+-scalar-standalone\.js"$/);
    await first.arrayBuffer();
    const again = await fetch(`${server.url}/docs/assets/scalar-standalone.js`, {
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);
    expect((await fetch(`${server.url}/docs/assets/swagger-ui-bundle.js`)).status).toBe(404);
  });
});

function screenshotPath(): string {
  return process.env.UPDATE_SCREENSHOTS === "1"
    ? join(import.meta.dir, "../../docs/images/openapi-scalar.png")
    : join(process.env.TMPDIR ?? "/tmp", "webfw-openapi-scalar.png");
}
