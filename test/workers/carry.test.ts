/**
 * An offloaded handler sees what an inline one sees, and its Worker is a full
 * citizen of the app's lifecycle (docs/workers.md).
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerHandle } from "../../src/index.ts";
import { logger } from "../../src/log/logger.ts";

const dir = mkdtempSync(join(tmpdir(), "webfw-carry-"));
const eventsFile = join(dir, "events.txt");
// Read by the app file when the Workers import it too (they inherit the environment).
process.env.CARRY_EVENTS = eventsFile;
process.env.CARRY_DIR = dir;
const { default: app, writeBigFile } = await import("../fixtures/workers-carry-app.ts");
const events = () => {
  try {
    return readFileSync(eventsFile, "utf8").trim().split("\n");
  } catch {
    return [];
  }
};

let server: ServerHandle;
let big: Uint8Array<ArrayBuffer>;
beforeAll(async () => {
  big = writeBigFile(dir, 3 * 1024 * 1024 + 17);
  server = await app.start({ port: 0, workers: 2 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("--workers 2: what an offloaded handler carries", () => {
  test("request.state crosses to the Worker and back (after-middlewares see what the handler set)", async () => {
    const response = await fetch(`${server.url}/state`);
    expect(await response.json()).toEqual({ fromBefore: "before", main: false });
    expect(response.headers.get("x-from-handler")).toBe("handler-worker");
  });

  test("state that cannot cross threads answers 500 and says why in the log", async () => {
    const spy = spyOn(logger, "error").mockImplementation(() => {});
    const response = await fetch(`${server.url}/state?fn=1`);
    const logged = spy.mock.calls
      .map((call) => String((call[1] as { error?: Error })?.error?.message))
      .join("\n");
    spy.mockRestore();
    expect(response.status).toBe(500);
    expect(logged).toContain("keep only data");
  });

  test("a large file from a Worker is streamed, byte for byte", async () => {
    const response = await fetch(`${server.url}/big`);
    expect(response.status).toBe(200);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(big);
  });

  test("an endless stream from a Worker starts at once and stops when the client goes away", async () => {
    const controller = new AbortController();
    const response = await fetch(`${server.url}/endless`, { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toStartWith("tick 0");
    controller.abort();
    await reader.cancel().catch(() => {});
    const deadline = performance.now() + 3000;
    while (!events().some((e) => e.startsWith("generator-closed worker-")) && performance.now() < deadline)
      await Bun.sleep(25);
    expect(events().filter((e) => e.startsWith("generator-closed"))).toHaveLength(1);
    expect(events().find((e) => e.startsWith("generator-closed"))).toStartWith("generator-closed worker-");
  });

  test("startup and shutdown handlers run in the main thread and in every Worker", async () => {
    await server.stop();
    const all = events();
    const startup = all.filter((e) => e.startsWith("startup")).sort();
    const shutdown = all.filter((e) => e.startsWith("shutdown")).sort();
    expect(startup.filter((e) => e.endsWith("main"))).toHaveLength(1);
    expect(startup.filter((e) => e.includes("worker-"))).toHaveLength(2);
    expect(shutdown.map((e) => e.replace("shutdown", "startup"))).toEqual(startup);
  });
});
