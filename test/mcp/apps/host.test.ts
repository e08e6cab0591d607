/**
 * MCP Apps end to end: the ext-apps SDK's host side (`AppBridge`) in a page of
 * headless Chromium (test/mcp/apps/host-page.ts, bundled for the browser here
 * with `Bun.build`; the page's own server is a second origin, so the official
 * v2 client in it reaches examples/mcp-app.ts cross-origin, as a web host
 * would). Each tool's UI is loaded into a sandboxed iframe (`allow-scripts`
 * only, under the CSP built from its resource metadata), given the tool's
 * input and result, renders them, and calls a tool back through the bridge.
 *
 * Needs `/usr/bin/chromium`; skipped with the reason printed without it, a failure under CI=true.
 * `UPDATE_SCREENSHOTS=1` rewrites docs/images/mcp-apps.png (written when missing too).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as v2 from "@modelcontextprotocol/client";
import type { Browser, Page } from "playwright-core";
import app from "../../../examples/mcp-app.ts";
import type { ServerHandle } from "../../../src/index.ts";
import { describeWithChromium, launchChromium, offlinePage } from "../../helpers/chromium.ts";

const SCREENSHOT = join(import.meta.dir, "../../../docs/images/mcp-apps.png");

interface HostLog {
  sizes: { width?: number; height?: number }[];
  initialized: number;
  errors: string[];
}

describeWithChromium("MCP Apps in Chromium (ext-apps AppBridge)", () => {
  let server: ServerHandle;
  let host: ReturnType<typeof Bun.serve>;
  let browser: Browser;
  let page: Page;
  let outside: string[] = [];
  let pageErrors: string[] = [];

  const show = (tool: string, args: Record<string, unknown>): Promise<string> =>
    page.evaluate(
      ([url, name, input]) =>
        (
          window as unknown as { showTool(url: string, name: string, args: unknown): Promise<string> }
        ).showTool(url as string, name as string, input),
      [`${server.url}/mcp`, tool, args] as const,
    );
  const hostLog = (): Promise<HostLog> =>
    page.evaluate(() => (window as unknown as { hostLog: HostLog }).hostLog);

  beforeAll(async () => {
    const built = await Bun.build({
      entrypoints: [join(import.meta.dir, "host-page.ts")],
      target: "browser",
    });
    if (!built.success) throw new Error(built.logs.map((log) => log.message).join("\n"));
    const script = await (built.outputs[0] as Blob).text();
    host = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        const { pathname } = new URL(request.url);
        if (pathname === "/host.js")
          return new Response(script, { headers: { "content-type": "text/javascript" } });
        if (pathname === "/") {
          return new Response(
            '<!doctype html><html><head><meta charset="utf-8"><title>host</title></head>' +
              '<body style="margin:8px;font:13px system-ui"><script type="module" src="/host.js"></script></body></html>',
            { headers: { "content-type": "text/html" } },
          );
        }
        return new Response("not found", { status: 404 });
      },
    });
    // A web host is another origin: the endpoint answers its CORS requests once it is allowed.
    app.mcp.configure({ allowedOrigins: [host.url.origin] });
    server = await app.start({ port: 0, host: "127.0.0.1" });
    browser = await launchChromium();
    ({ page, outside, pageErrors } = await offlinePage(
      browser,
      [`${host.url.origin}/`, `${server.url}/mcp`],
      { width: 600, height: 700 },
    ));
    await page.goto(host.url.href);
    await page.waitForFunction(() => "showTool" in window, undefined, { timeout: 20_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    host?.stop(true);
    await server?.stop(true);
  });

  test("a route tool's template UI renders the result and calls the tool again through the bridge", async () => {
    const frameId = await show("sales_report", { region: "north" });
    const frame = page.frameLocator(`#${frameId}`);
    await frame.locator("h2", { hasText: "Sales: north" }).waitFor({ timeout: 15_000 });
    expect(await frame.locator(".total").textContent()).toBe("Total: 62");
    expect(await frame.locator(".bar").allTextContents()).toEqual(["12", "19", "7", "24"]);
    // The View reported its size to the host; the preferred height (260) is where it starts.
    const sized = await hostLog();
    expect(sized.initialized).toBe(1);
    expect(Math.max(...sized.sizes.map((size) => size.height ?? 0))).toBeGreaterThanOrEqual(260);

    const image = await page.locator(`#${frameId}`).screenshot();
    expect(image.byteLength).toBeGreaterThan(1000);
    if (process.env.UPDATE_SCREENSHOTS === "1" || !existsSync(SCREENSHOT)) await Bun.write(SCREENSHOT, image);

    // The button's tools/call goes View → AppBridge → the host's client → webfw → the route.
    await frame.locator("button", { hasText: "Next: south" }).click();
    await frame.locator("h2", { hasText: "Sales: south" }).waitFor({ timeout: 15_000 });
    expect(await frame.locator(".total").textContent()).toBe("Total: 43");
  }, 60_000);

  test("a bundled UI on the ext-apps App client shows its result and calls an app-only tool", async () => {
    const frameId = await show("counter", {});
    const frame = page.frameLocator(`#${frameId}`);
    const output = frame.locator("#count");
    await frame.locator("#count", { hasText: "0" }).waitFor({ timeout: 15_000 });
    await frame.locator("#increment").click();
    await frame.locator("#count", { hasText: "1" }).waitFor({ timeout: 15_000 });
    await frame.locator("#increment").click();
    await frame.locator("#count", { hasText: "2" }).waitFor({ timeout: 15_000 });
    expect(await output.textContent()).toBe("2");

    // The calls reached the app: its state moved (read by another client, without the UI).
    const client = new v2.Client({ name: "check", version: "1.0.0" });
    await client.connect(new v2.StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const result = await client.callTool({ name: "counter", arguments: {} });
    expect(result.structuredContent).toEqual({ count: 2 });
    await client.close();
  }, 60_000);

  test("nothing was fetched but the host page and the MCP endpoint; no page errors", async () => {
    expect(outside).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect((await hostLog()).errors).toEqual([]);
  });
});
