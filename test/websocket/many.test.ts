import { expect, test } from "bun:test";
import { Webfw } from "../../src/index.ts";
import { connect, start, type TestClient, within, wsUrl } from "./helpers.ts";

const COUNT = 1000;

test(`${COUNT} connections are held, all get a broadcast, and close cleanly`, async () => {
  const app = new Webfw(import.meta.path, { openapi: false });
  let open = 0;
  let closed = 0;
  const room = app
    .websocket("/hub", async (ws) => {
      for await (const message of ws) {
        if (message === "ping") await ws.sendText("pong");
        else await ws.broadcast(String(message));
      }
    })
    .onConnect(() => {
      open++;
      return "hi";
    })
    .onClose(() => {
      closed++;
    });
  expect(room).toBeDefined();
  const server = await start(app);
  const clients: TestClient[] = [];
  try {
    await within(
      (async () => {
        // In batches, so the listen backlog is never the limit being tested.
        for (let i = 0; i < COUNT; i += 100) {
          const batch = await Promise.all(Array.from({ length: 100 }, () => connect(wsUrl(server, "/hub"))));
          clients.push(...batch);
        }
        for (const client of clients) expect(await client.next()).toBe("hi");
      })(),
      60_000,
      "opening the connections",
    );
    expect(open).toBe(COUNT);

    // Every connection is alive and served on its own.
    const sample = [clients[0], clients[499], clients[COUNT - 1]] as TestClient[];
    for (const client of sample) client.send("ping");
    for (const client of sample) expect(await client.next()).toBe("pong");

    // One broadcast reaches all of them.
    clients[123]?.send("to everyone");
    await within(
      Promise.all(clients.map(async (client) => expect(await client.next(30_000)).toBe("to everyone"))),
      30_000,
      "the broadcast",
    );

    // Half leave from the client side, the rest are closed by stopping the server.
    const leaving = clients.slice(0, COUNT / 2);
    for (const client of leaving) client.close(1000, "bye");
    const leftCodes = await within(Promise.all(leaving.map((c) => c.closed)), 30_000, "client-side closes");
    expect(leftCodes.every((event) => event.code === 1000)).toBe(true);

    const staying = clients.slice(COUNT / 2);
    await within(server.stop(), 30_000, "server.stop() with open WebSockets");
    const stopCodes = await within(Promise.all(staying.map((c) => c.closed)), 30_000, "server-side closes");
    expect(stopCodes.every((event) => event.code === 1001)).toBe(true);
    for (let i = 0; i < 200 && closed < COUNT; i++) await Bun.sleep(10);
    expect(closed).toBe(COUNT);
  } finally {
    for (const client of clients) client.close();
    await server.stop(true);
  }
}, 120_000);
