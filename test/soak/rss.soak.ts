/**
 * Memory: RSS after WEBFW_SOAK_REQUESTS requests (default 1,000,000) of the
 * mixed load stays within 10 % of RSS after the warm-up (10 % of the
 * requests). Both are read from /proc after a full GC in the app.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Results } from "../security/helpers.ts";
import { mib, type Program, runWrk, SOAK, settle, startMixed } from "./harness.ts";

const results = new Results("soak-rss");
let program: Program;

beforeAll(async () => {
  program = await startMixed();
});
afterAll(async () => {
  await program.stop("SIGTERM");
  results.write();
});

/** Runs wrk in 5 s rounds until `total` requests were served; returns how many were. */
async function load(total: number): Promise<number> {
  let served = 0;
  while (served < total) {
    const run = await runWrk(program.url, 5, 64);
    expect(run.status5xx).toBe(0);
    served += run.requests;
  }
  return served;
}

test(
  `RSS after ${SOAK.requests} requests is within 10 % of RSS after warm-up`,
  async () => {
    const warmup = await load(Math.max(50_000, SOAK.requests / 10));
    const afterWarmup = await settle(program);
    const rest = await load(SOAK.requests - warmup);
    const end = await settle(program);
    const growth = (end.rss - afterWarmup.rss) / afterWarmup.rss;
    results.add({
      group: "memory",
      input: `${warmup + rest} requests of the mixed load (64 connections)`,
      outcome: `RSS ${mib(afterWarmup.rss)} after ${warmup} (warm-up) → ${mib(end.rss)} after ${warmup + rest}: ${(growth * 100).toFixed(1)} %; JS objects ${afterWarmup.objects} → ${end.objects}`,
      survived: true,
    });
    expect(growth).toBeLessThan(0.1);
    expect(end.objects).toBeLessThan(afterWarmup.objects * 1.01 + 100);
  },
  30 * 60 * 1000,
);
