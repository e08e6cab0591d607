/**
 * WebSocket churn: WEBFW_SOAK_WS_CYCLES (default 10,000) connect → echo →
 * disconnect cycles, 32 at a time, half closed by the client with a close
 * frame and half dropped without one, after a warm-up of 5,000 cycles (or half
 * as many, if more): Bun's native pools grow once, then stay. Afterwards the server is back to its
 * baseline: no open connection (its own count and Bun's), the same number of
 * file descriptors and live JavaScript objects, RSS within 10 %; and a second
 * round of as many cycles adds less than 3 % (no growing trend).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { waitFor } from "../cli/helpers.ts";
import { Results } from "../security/helpers.ts";
import { rawGet } from "../security/raw-client.ts";
import { frame, rawWebSocket } from "../security/raw-websocket.ts";
import { fdCount, mib, type Program, SOAK, settle, startMixed } from "./harness.ts";

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

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
    if (echo === null || new TextDecoder().decode(echo.payload) !== `raw ${index}`)
      throw new Error("no echo");
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
  return waitFor(
    async () => {
      const s = await stats();
      return s.wsOpen === 0 && s.bunWebSockets === 0 ? s : undefined;
    },
    15_000,
    "every WebSocket to be closed on the server",
  );
}

test(
  `${SOAK.wsCycles} WebSocket connect/disconnect cycles leave nothing behind`,
  async () => {
    const warmup = Math.max(5000, Math.round(SOAK.wsCycles / 2));
    expect(await churn(warmup)).toBe(0);
    await quiet();
    const baseFds = fdCount(program.proc.pid);
    const base = await settle(program);

    const failures = await churn(SOAK.wsCycles);
    const after = await quiet();
    const fds = fdCount(program.proc.pid);
    const end = await settle(program);
    const growth = (end.rss - base.rss) / base.rss;
    // A second round of the same size: a leak keeps growing, a high-water mark does not.
    expect(await churn(SOAK.wsCycles)).toBe(0);
    await quiet();
    const again = await settle(program);
    const secondGrowth = (again.rss - end.rss) / end.rss;
    results.add({
      group: "WebSocket churn",
      input: `${SOAK.wsCycles} connect/echo/disconnect cycles, 32 at a time (half without a close frame), after ${warmup} warm-up cycles`,
      outcome: `${failures} failed; open after: ${after.wsOpen} (Bun: ${after.bunWebSockets}); fds ${baseFds} → ${fds}; JS objects ${base.objects} → ${end.objects}; RSS ${mib(base.rss)} → ${mib(end.rss)} (${pct(growth)}), ${pct(secondGrowth)} over ${SOAK.wsCycles} more`,
      survived: true,
    });
    expect(failures).toBe(0);
    expect(after.wsOpened).toBeGreaterThanOrEqual(SOAK.wsCycles + warmup);
    expect(fds).toBeLessThanOrEqual(baseFds + 2);
    expect(end.objects).toBeLessThan(base.objects * 1.01 + 100);
    expect(growth).toBeLessThan(0.1);
    expect(secondGrowth).toBeLessThan(0.03);
  },
  20 * 60 * 1000,
);
