/**
 * `app.start({ idleTimeout })` reaches Bun.serve: a client that stops sending
 * mid-body is disconnected after it; others are served meanwhile. (Partial
 * *headers* are cut by Bun after about 10 s whatever the option says: see
 * test/soak/slowloris.soak.ts and docs/security.md.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { Results, startQuiet } from "./helpers.ts";

const results = new Results("idle-timeout");
afterAll(() => results.write());

import { rawExchange, rawGet } from "./raw-client.ts";

describe("idleTimeout start option", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    const app = new Webfw(import.meta.path);
    app.get("/", () => "ok");
    app.post("/upload", (request) => `got ${request.text().length}`);
    server = await startQuiet(app, { idleTimeout: 1 });
  });
  afterAll(() => server.stop(true));

  test("a body that stops arriving is dropped after the idle timeout; others are served meanwhile", async () => {
    const started = performance.now();
    const stalled = rawExchange(
      server.port,
      "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly a few bytes",
      { waitMs: 9000, untilClose: true },
    );
    const during = await rawGet(server.port, "/");
    expect(during.status).toBe(200);
    const reply = await stalled;
    expect(reply.closed).toBe(true);
    expect(reply.status).toBe(0); // Bun closes without an answer: the client never finished its request
    // Bun's timer ticks every 4 s, so idleTimeout 1 closes within 1-8 s; the default (10 s) would not.
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(8500);
    expect((await rawGet(server.port, "/")).status).toBe(200);
    results.add({
      group: "slow clients",
      input: "body stops arriving (10 of 100 bytes), idleTimeout 1",
      outcome: `closed without an answer after ${(elapsed / 1000).toFixed(1)} s; others served meanwhile`,
      survived: true,
    });
  }, 15_000);

  test("values Bun cannot take are refused at start", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/", () => "ok");
    for (const value of [-1, 1.5, 256, Number.NaN]) {
      await expect(startQuiet(app, { idleTimeout: value })).rejects.toThrow(/idleTimeout/);
    }
  });
});
