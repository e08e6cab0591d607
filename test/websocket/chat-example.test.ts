/**
 * The chat example (examples/chat): its protocol with real WebSocket clients,
 * and its page in a real browser (Debian's Chromium through playwright-core;
 * without /usr/bin/chromium the browser test is skipped with a reason, and fails under CI=true).
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import app from "../../examples/chat/app.ts";
import type { ServerHandle } from "../../src/index.ts";
import { testWithProgram } from "../helpers/system-program.ts";
import { connect, type TestClient, within, wsUrl } from "./helpers.ts";

interface ChatEvent {
  type: string;
  name?: string;
  from?: string;
  text?: string;
  room?: string;
  id?: string;
}

const CHROMIUM = "/usr/bin/chromium";

describe("examples/chat", () => {
  let server: ServerHandle;
  const clients: TestClient[] = [];
  const join = async (room: string, name: string) => {
    const client = await connect(wsUrl(server, `/chat/${room}?name=${encodeURIComponent(name)}`));
    clients.push(client);
    return client;
  };
  const nextEvent = async (client: TestClient) => JSON.parse(String(await client.next())) as ChatEvent;

  beforeAll(async () => {
    server = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false, argv: [] });
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await server.stop(true);
  });

  test("GET / serves the page", async () => {
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    const page = await response.text();
    expect(page).toContain("<title>webfw chat</title>");
    expect(page).toContain("/chat/");
  });

  test("welcome first, then joins, messages to the room, leaves", async () => {
    const ada = await join("lobby", "ada");
    const welcome = await nextEvent(ada);
    expect(welcome).toMatchObject({ type: "welcome", room: "lobby", name: "ada" });
    expect(typeof welcome.id).toBe("string");
    expect(await nextEvent(ada)).toEqual({ type: "join", name: "ada" });

    const bob = await join("lobby", "bob");
    expect((await nextEvent(bob)).type).toBe("welcome");
    expect(await nextEvent(bob)).toEqual({ type: "join", name: "bob" });
    expect(await nextEvent(ada)).toEqual({ type: "join", name: "bob" });

    const elsewhere = await join("kitchen", "cy");
    expect((await nextEvent(elsewhere)).type).toBe("welcome");
    expect((await nextEvent(elsewhere)).type).toBe("join");

    bob.send("  hello <b>ada</b>  ");
    for (const client of [ada, bob]) {
      expect(await nextEvent(client)).toMatchObject({
        type: "message",
        from: "bob",
        text: "hello <b>ada</b>",
      });
    }
    bob.close();
    expect(await nextEvent(ada)).toEqual({ type: "leave", name: "bob" });
    await Bun.sleep(50);
    expect(elsewhere.pending()).toBe(0);
  });

  test("bad input: empty lines are ignored, long ones refused, binary closes with 1003", async () => {
    const client = await join("rules", "");
    expect(await nextEvent(client)).toMatchObject({ type: "welcome", name: "anonymous" });
    await nextEvent(client); // own join
    client.send("   ");
    client.send("x".repeat(2001));
    expect(await nextEvent(client)).toMatchObject({ type: "error" });
    client.send(new Uint8Array([1, 2]));
    const closed = await within(client.closed);
    expect([closed.code, closed.reason]).toEqual([1003, "text messages only"]);
  });

  test("a frame over the example's 64 KiB limit closes with 1009", async () => {
    const client = await join("big", "big");
    client.send("x".repeat(64 * 1024 + 1));
    expect((await within(client.closed)).code).toBe(1009);
  });

  testWithProgram(
    CHROMIUM,
    "apt-get install -y chromium",
    "two browser tabs chat through the page",
    async () => {
      if (!existsSync(CHROMIUM)) {
        throw new Error(
          `${CHROMIUM} is missing: this test needs Debian's Chromium (apt-get install -y chromium)`,
        );
      }
      const browser: Browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--no-first-run",
          "--disable-background-networking",
        ],
      });
      try {
        const tab = async (name: string) => {
          const page = await browser.newPage();
          await page.goto(`${server.url}/`);
          await page.fill('#join input[name="name"]', name);
          await page.fill('#join input[name="room"]', "browser-room");
          await page.click("#join button");
          await page.waitForSelector('#say input[name="text"]:not([disabled])', { timeout: 10_000 });
          return page;
        };
        const first = await tab("ada");
        const second = await tab("<img src=x onerror=alert(1)>");
        await first.fill('#say input[name="text"]', "hello from tab one");
        await first.press('#say input[name="text"]', "Enter");
        await second.waitForSelector("#log li.message", { timeout: 10_000 });
        expect(await second.textContent("#log li.message")).toBe("ada: hello from tab one");
        expect(await first.textContent("#status")).toBe("in #browser-room as ada");
        // The hostile name is shown as text, never as markup.
        await first.waitForSelector("#log li.event >> text=joined", { timeout: 10_000 });
        expect(await first.locator("#log img").count()).toBe(0);
        expect(await first.textContent("#log")).toContain("<img src=x onerror=alert(1)> joined");
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
