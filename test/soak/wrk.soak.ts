/**
 * Load: wrk, 256 connections, the mixed app, WEBFW_SOAK_SECONDS (default 60 s)
 * on loopback. Zero socket errors, zero 5xx; the 4xx are exactly the 404s the
 * mix asks for (one request in ten).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Results } from "../security/helpers.ts";
import { mib, type Program, rssOf, runWrk, SOAK, startMixed } from "./harness.ts";

const results = new Results("soak-wrk");
let program: Program;

beforeAll(async () => {
  program = await startMixed();
});
afterAll(async () => {
  expect(await program.stop("SIGTERM")).toBe(0);
  results.write();
});

test(
  `wrk ${SOAK.seconds} s at ${SOAK.connections} connections: no socket errors, no 5xx`,
  async () => {
    const run = await runWrk(program.url, SOAK.seconds, SOAK.connections);
    const errors = run.socketErrors;
    expect(run.requests).toBeGreaterThan(0);
    expect(errors).toEqual({ connect: 0, read: 0, write: 0, timeout: 0 });
    expect(run.status5xx).toBe(0);
    // One request in ten is the deliberate 404.
    expect(Math.abs(run.status4xx - run.requests / 10)).toBeLessThanOrEqual(SOAK.connections * 2);
    expect((await fetch(`${program.url}/`)).status).toBe(200);
    results.add({
      group: "load",
      input: `wrk -t2 -c${SOAK.connections} -d${SOAK.seconds}s, mixed app (10 request kinds)`,
      outcome: `${run.requests} requests (${Math.round(run.requestsPerSec)}/s), p99 ${(run.p99Us / 1000).toFixed(1)} ms, 0 socket errors, 0 5xx, ${run.status4xx} deliberate 404s; RSS ${mib(rssOf(program.proc.pid))}`,
      survived: true,
    });
  },
  (SOAK.seconds + 60) * 1000,
);
