/**
 * The dashboard in headless Chromium (playwright-core), on the showcase run as
 * `webfw examples/showcase.ts --dev`: a curl request appears in the list within a second, opens to
 * its trace waterfall and log lines, an MCP tool called from the page's form reaches the app, the
 * composer's request id comes back into the list, and every view renders real data. Nothing is
 * fetched from outside the app. `UPDATE_SCREENSHOTS=1` writes the screenshots to
 * docs/images/dashboard-*.png (docs/dashboard.md).
 *
 * Needs `/usr/bin/chromium`; skipped with the reason printed without it, failing under CI=true.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { CHROMIUM, describeWithChromium, launchChromium, offlinePage } from "../helpers/chromium.ts";
import { type DevServer, startDev } from "./helpers.ts";

// `UPDATE_SCREENSHOTS=1` writes docs/images/dashboard-*.png (docs/dashboard.md); otherwise a temporary folder.
const IMAGES =
  process.env.UPDATE_SCREENSHOTS === "1"
    ? join(import.meta.dir, "../../docs/images")
    : mkdtempSync(join(tmpdir(), "webfw-dashboard-shots-"));

describeWithChromium("the dashboard in Chromium", () => {
  let dev: DevServer;
  let browser: Browser;
  let page: Page;
  let outside: string[] = [];
  let pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install -y chromium)`);
    dev = await startDev("examples/showcase.ts");
    browser = await launchChromium();
    ({ page, outside, pageErrors } = await offlinePage(browser, [`${dev.url}/`], {
      width: 1400,
      height: 820,
    }));
    await page.goto(`${dev.url}/_webfw`);
    await page.waitForFunction(
      () => document.querySelector("#status")?.textContent?.startsWith("live"),
      null,
      {
        timeout: 15_000,
      },
    );
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await dev?.stop();
  });

  test("a curl request appears within a second and opens to its trace waterfall and logs", async () => {
    const id = `curl-browser-${Date.now()}`;
    const curl = Bun.spawnSync(["curl", "-s", "-H", `x-request-id: ${id}`, `${dev.url}/hello/grace`]);
    expect(curl.stdout.toString()).toBe("Hello, grace!");
    const started = performance.now();
    const row = page.locator(`#requests tr[data-id="${id}"]`);
    await row.waitFor({ timeout: 1000 });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await row.textContent()).toContain("/hello/grace");
    await row.click();
    await page.locator("#detail .waterfall .span").first().waitFor({ timeout: 2000 });
    expect(await page.locator("#detail h3").textContent()).toContain("GET /hello/grace → 200");
    expect(await page.locator("#detail .waterfall").textContent()).toContain("GET /hello/:name");
    expect(await page.locator("#detail .logs").textContent()).toContain(`request_id=${id}`);
    // A few more requests so that the list and the charts have something to show.
    for (const path of ["/todos", "/add?a=1&b=2", "/add?a=x", "/me", "/api/v1/version"])
      await fetch(`${dev.url}${path}`);
    await page.locator('#requests tr[data-id] >> text="/api/v1/version"').waitFor({ timeout: 1000 });
    await page.waitForTimeout(1300); // the new rows' highlight fades
    await page.screenshot({ path: join(IMAGES, "dashboard-requests.png") });
  });

  test("an MCP tool called from the form reaches the app, and its call shows in the list", async () => {
    await page.click('nav button[data-view="mcp"]');
    const tool = page.locator('.tool[data-name="add_todo"]');
    await tool.waitFor({ timeout: 10_000 });
    await tool.locator('input[name="title"]').fill("called from the dashboard");
    await tool.locator('button[type="submit"]').click();
    await page.waitForFunction(
      () =>
        document
          .querySelector('.tool[data-name="add_todo"] pre.result')
          ?.textContent?.includes("called from the dashboard"),
      null,
      { timeout: 5000 },
    );
    // The app has it: the tool ran in the server.
    const todos = (await (await fetch(`${dev.url}/todos`)).json()) as { title: string }[];
    expect(todos.map((todo) => todo.title)).toContain("called from the dashboard");
    await page.screenshot({ path: join(IMAGES, "dashboard-mcp.png") });
    // The tools/call request is in the list, and its trace holds the tool's span.
    await page.click('nav button[data-view="requests"]');
    const mcpRows = page.locator('#requests tr[data-id]:has-text("/mcp")');
    await mcpRows.first().waitFor({ timeout: 1000 });
    let found = false;
    for (let i = 0; i < (await mcpRows.count()) && !found; i++) {
      await mcpRows.nth(i).click();
      await page.locator("#detail h3").waitFor();
      await page.waitForTimeout(100);
      found = ((await page.locator("#detail .waterfall").textContent()) ?? "").includes("add_todo");
    }
    expect(found).toBe(true);
    await page.screenshot({ path: join(IMAGES, "dashboard-trace.png") });
  });

  test("the composer sends a request and fills its id back into the list", async () => {
    await page.click('nav button[data-view="composer"]');
    await page.selectOption('#composer select[name="method"]', "POST");
    await page.fill('#composer input[name="path"]', "/todos");
    await page.fill('#composer textarea[name="body"]', JSON.stringify({ title: "from the composer" }));
    await page.click('#composer button[type="submit"]');
    const link = page.locator("#composed a[data-request-id]");
    await link.waitFor({ timeout: 5000 });
    expect(await page.locator("#composed h3").textContent()).toContain("201");
    const id = (await link.getAttribute("data-request-id")) as string;
    await page.screenshot({ path: join(IMAGES, "dashboard-composer.png") });
    await link.click();
    await page.locator(`#requests tr.selected[data-id="${id}"]`).waitFor({ timeout: 1000 });
    await page.locator('#detail h3:has-text("POST /todos → 201")').waitFor({ timeout: 1000 });
    expect(await page.locator("#detail .meta, #detail p.muted").first().textContent()).toContain(id);
  });

  test("routes, charts and WebSockets render the running app", async () => {
    await page.click('nav button[data-view="routes"]');
    await page.locator("#routes tbody tr").first().waitFor();
    const routes = await page.locator("#routes tbody").textContent();
    expect(routes).toContain("/hello/:name");
    expect(routes).toContain("auth DemoAuth (required)");
    expect(routes).toMatch(/examples\/showcase\.ts:\d+/);
    await page.screenshot({ path: join(IMAGES, "dashboard-routes.png") });

    await page.click('nav button[data-view="charts"]');
    await page.locator('.card[data-route="GET /add"]').waitFor({ timeout: 3000 });
    expect(await page.locator('.card[data-route="GET /add"] .legend').first().textContent()).toMatch(
      /[1-9]\d* requests/,
    );
    // Live: a new route's card appears without a reload.
    await fetch(`${dev.url}/index.html`, { redirect: "manual" });
    await page.locator('.card[data-route="GET /index.html"]').waitFor({ timeout: 4000 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(IMAGES, "dashboard-charts.png") });

    const ws = new WebSocket(`${dev.url.replace("http", "ws")}/live`);
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = reject;
    });
    try {
      await page.click('nav button[data-view="sockets"]');
      await page.locator('#topics tr[data-topic="todos"]').waitFor({ timeout: 4000 });
      expect(await page.locator('#topics tr[data-topic="todos"] td').nth(1).textContent()).toBe("1");
      expect(await page.locator("#connections tbody").textContent()).toContain("/live");
      await page.screenshot({ path: join(IMAGES, "dashboard-websockets.png") });
    } finally {
      ws.close();
    }
  });

  test("after a --dev restart (a source file changed) the page reconnects and lists new requests", async () => {
    await page.click('nav button[data-view="requests"]');
    const before = await page.locator("#status").textContent();
    // The reloader watches the app's folder: a touched file restarts the app in a new process.
    const now = new Date();
    utimesSync(join(import.meta.dir, "../../examples/showcase.ts"), now, now);
    await page.waitForFunction(
      (old) => {
        const text = document.querySelector("#status")?.textContent ?? "";
        return text.startsWith("live") && text !== old;
      },
      before,
      { timeout: 20_000 },
    );
    const id = `after-restart-${Date.now()}`;
    Bun.spawnSync(["curl", "-s", "-H", `x-request-id: ${id}`, `${dev.url}/hello/again`]);
    // The reloader may restart more than once for one change: the page follows each restart.
    await page.locator(`#requests tr[data-id="${id}"]`).waitFor({ timeout: 8000 });
  }, 30_000);

  test("nothing was fetched from outside the app, and the page threw no error", () => {
    expect(outside).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
