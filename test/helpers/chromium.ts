/**
 * Headless Chromium for the browser suites (Debian's `/usr/bin/chromium` driven by playwright-core):
 * one launch recipe, and pages that may reach only the servers under test, so that a suite proves
 * that a page works offline (docs/openapi.md, docs/dashboard.md, docs/mcp-apps.md,
 * docs/secure-headers.md).
 */
import { type Browser, chromium, type Page } from "playwright-core";
import { describeWithProgram } from "./system-program.ts";

export const CHROMIUM = "/usr/bin/chromium";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** `describe` that needs Chromium: skipped with the reason printed without it, failing under CI=true. */
export function describeWithChromium(name: string, body: () => void): void {
  describeWithProgram(CHROMIUM, "apt-get install -y chromium", name, body);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}

export interface OfflinePage {
  page: Page;
  /** Every URL the page asked for outside the allowed prefixes (aborted). */
  outside: string[];
  /** Every uncaught script error of the page. */
  pageErrors: string[];
}

/** A new page whose requests reach only URLs starting with one of `allowed`; the rest are aborted and recorded. */
export async function offlinePage(
  browser: Browser,
  allowed: readonly string[],
  viewport: { width: number; height: number },
): Promise<OfflinePage> {
  const page = await browser.newPage({ viewport });
  const outside: string[] = [];
  const pageErrors: string[] = [];
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (allowed.some((prefix) => url.startsWith(prefix))) return route.continue();
    outside.push(url);
    return route.abort();
  });
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  return { page, outside, pageErrors };
}
