/**
 * WebSocket churn: WEBFW_SOAK_WS_CYCLES (default 10,000) connect → echo →
 * disconnect cycles, 32 at a time, half closed by the client with a close
 * frame and half dropped without one. Afterwards the server is back to its
 * baseline: no open connection (its own count and Bun's), the same number of
 * file descriptors, RSS within 10 %.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { waitFor } from "../cli/helpers.ts";
import { Results } from "../security/helpers.ts";
import { rawGet } from "../security/raw-client.ts";
import { rawWebSocket, frame } from "../security/raw-websocket.ts";
import { fdCount, mib, type Program, SOAK, settledRss, startMixed } from "./harness.ts";

const results = new Results("soak-websocket");
let program: Program;

beforeAll(async () => {
  program = await startMixed();
});
afterAll(async () => {
  await program.stop("SIGTERM");
  results.write();
});

interface Stats {
  wsOpen: number;
  wsOpened: number;
  bunWebSockets: number;
}
const stats = async () => JSON.parse((await rawGet(program.port, "/stats")).body) as Stats;

/** One cycle: a real client (Bun's WebSocket) closing politely, or a raw socket that just goes away. */
async function cycle(index: number): Promise<void> {
  if (index % 2 === 0) {
    const ws = new WebSocket(`ws://127.0.0.1:${program.port}/ws`);
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => ws.send(`ping ${index}`);
      ws.onmessage = (event) => {
        if (event.data !== `ping ${index}`) reject(new Error(`wrong echo ${event.data}`));
        ws.close(1000);
      };
      ws.onclose = () => resolve();
      ws.onerror = () => reject(new Error("WebSocket error"));
    });
  } else {
    const raw = await rawWebSocket(program.port, "/ws");
    if (raw.status !== 101) throw new Error(`handshake ${raw.status}`);
    raw.send(frame(0x1, `raw ${index}`));
    const echo = await raw.nextFrame(5000);
    if (echo === null || new TextDecoder().decode(echo.payload) !== `raw ${index}`) throw new Error("no echo");
    raw.end(); // TCP close, no close frame
    await raw.closed;
  }
}

async function churn(count: number, concurrency = 32): Promise<number> {
  let next = 0;
  let failures = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        try {
          await cycle(index);
        } catch {
          failures++;
        }
      }
    }),
  );
  return failures;
}

async function quiet(): Promise<Stats> {
  return waitFor(async () => {
    const s = await stats();
    return s.wsOpen === 0 && s.bunWebSockets === 0 ? s : undefined;
  }, 15_000, "every WebSocket to be closed on the server");
}

test(
  `${SOAK.wsCycles} WebSocket connect/disconnect cycles leave nothing behind`,
  async () => {
    expect(await churn(500)).toBe(0);
    await quiet();
    const baseFds = fdCount(program.proc.pid);
    const baseRss = await settledRss(program);

    const failures = await churn(SOAK.wsCycles);
    const after = await quiet();
    const fds = fdCount(program.proc.pid);
    const rss = await settledRss(program);
    const growth = (rss - baseRss) / baseRss;
    results.add({
      group: "WebSocket churn",
      input: `${SOAK.wsCycles} connect/echo/disconnect cycles, 32 at a time (half without a close frame)`,
      outcome: `${failures} failed; open after: ${after.wsOpen} (Bun: ${after.bunWebSockets}); fds ${baseFds} → ${fds}; RSS ${mib(baseRss)} → ${mib(rss)} (${(growth * 100).toFixed(1)} %)`,
      survived: true,
    });
    expect(failures).toBe(0);
    expect(after.wsOpened).toBeGreaterThanOrEqual(SOAK.wsCycles + 500);
    expect(fds).toBeLessThanOrEqual(baseFds + 2);
    expect(growth).toBeLessThan(0.1);
  },
  20 * 60 * 1000,
);
