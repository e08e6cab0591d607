/**
 * Slow clients: WEBFW_SOAK_SLOW_CLIENTS (default 500) connections that send
 * their headers one byte every 2 s and never finish (slowloris), plus 50 that
 * stall inside a body. Bun cuts the header phase after about 10 s whatever
 * the settings (uWebSockets' fixed HTTP timeout, checked every 4 s) and
 * stalled bodies after `idleTimeout` (4 s here). Meanwhile normal requests
 * are all served.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Results } from "../security/helpers.ts";
import { rawExchange, rawGet } from "../security/raw-client.ts";
import { type Program, SOAK, startMixed } from "./harness.ts";

const results = new Results("soak-slowloris");
let program: Program;
const IDLE_TIMEOUT = 4;

beforeAll(async () => {
  program = await startMixed({ SOAK_IDLE_TIMEOUT: String(IDLE_TIMEOUT) });
});
afterAll(async () => {
  await program.stop("SIGTERM");
  results.write();
});

interface Slow {
  closedByServer: boolean;
  seconds: number;
  answered: number;
}

async function slowClient(request: string[], gapMs: number): Promise<Slow> {
  const started = performance.now();
  const reply = await rawExchange(program.port, request, { gapMs, waitMs: 45_000, untilClose: true });
  return {
    closedByServer: reply.closed,
    seconds: (performance.now() - started) / 1000,
    answered: reply.status,
  };
}

test(`${SOAK.slowClients} slowloris connections and 50 stalled bodies are cut; normal clients are served throughout`, async () => {
  const trickle = Array.from({ length: 40 }, (_, i) => String.fromCharCode(97 + (i % 26)));
  const heads = Array.from({ length: SOAK.slowClients }, (_, i) =>
    slowClient([`GET /?slow=${i} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `, ...trickle], 2000),
  );
  const bodies = Array.from({ length: 50 }, (_, i) =>
    slowClient(
      [
        `POST /json?slow=${i} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n[`,
        ...trickle.map(() => "1,"),
      ],
      2000,
    ),
  );

  let served = 0;
  let failed = 0;
  let worstMs = 0;
  let running = true;
  const normal = (async () => {
    while (running) {
      const started = performance.now();
      const reply = await rawGet(program.port, "/items/7?q=x");
      worstMs = Math.max(worstMs, performance.now() - started);
      if (reply.status === 200) served++;
      else failed++;
      await Bun.sleep(20);
    }
  })();

  const [headResults, bodyResults] = await Promise.all([Promise.all(heads), Promise.all(bodies)]);
  running = false;
  await normal;

  const headCut = headResults.filter((r) => r.closedByServer);
  const bodyCut = bodyResults.filter((r) => r.closedByServer);
  const slowest = (list: Slow[]) => Math.max(...list.map((r) => r.seconds)).toFixed(1);
  results.add({
    group: "slow clients",
    input: `${SOAK.slowClients} slowloris connections (a header byte every 2 s), idleTimeout ${IDLE_TIMEOUT}`,
    outcome: `${headCut.length} cut by the server, the last after ${slowest(headResults)} s; none answered`,
    survived: true,
  });
  results.add({
    group: "slow clients",
    input: "50 bodies stalling (a byte every 2 s, Content-Length 1000)",
    outcome: `${bodyCut.length} cut by the server, the last after ${slowest(bodyResults)} s`,
    survived: true,
  });
  results.add({
    group: "slow clients",
    input: "a normal client polling meanwhile",
    outcome: `${served} requests served, ${failed} failed, slowest ${worstMs.toFixed(0)} ms`,
    survived: failed === 0,
  });
  expect(headCut.length).toBe(SOAK.slowClients);
  expect(headResults.every((r) => r.answered === 0 && r.seconds < 30)).toBe(true);
  expect(bodyCut.length).toBe(50);
  expect(bodyResults.every((r) => r.seconds < IDLE_TIMEOUT + 10)).toBe(true);
  expect(failed).toBe(0);
  expect(served).toBeGreaterThan(50);
}, 120_000);
