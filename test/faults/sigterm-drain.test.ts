/**
 * SIGTERM under load loses no request: 64 clients keep slow requests (200-500 ms)
 * in flight; the signal arrives mid-load; every request the server had
 * accepted (it prints `start <id>`) is answered 200 with its own body, and
 * requests sent after the signal are refused at connect, never cut halfway.
 * Counted client-side. Single process, and `--processes 2` (the supervisor
 * forwards the signal).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Results } from "../security/helpers.ts";
import { rawGet } from "../security/raw-client.ts";
import { launch } from "./spawn.ts";

const results = new Results("faults-sigterm");
afterAll(() => results.write());

interface Attempt {
  id: number;
  sentAt: number;
  /** ok: answered; refused: connect failed; unserved: connected, then closed with not one byte (never processed). */
  outcome: "ok" | "refused" | "unserved" | "failed";
  detail: string;
  answeredAt: number;
}

const count = (attempts: Attempt[], outcome: Attempt["outcome"]) =>
  attempts.filter((a) => a.outcome === outcome).length;

async function drainUnderLoad(flags: string[], listening: number) {
  const program = await launch(flags, { listening });
  const attempts: Attempt[] = [];
  let nextId = 0;
  let stopLoad = false;
  const client = async () => {
    while (!stopLoad) {
      const attempt: Attempt = {
        id: nextId++,
        sentAt: performance.now(),
        outcome: "failed",
        detail: "",
        answeredAt: 0,
      };
      attempts.push(attempt);
      try {
        // 200-500 ms, so that requests are at every stage when the signal comes.
        const reply = await rawGet(program.port, `/slow?id=${attempt.id}&ms=${200 + (attempt.id % 7) * 50}`);
        attempt.answeredAt = performance.now();
        if (reply.status === 200 && reply.body === `done ${attempt.id}`) attempt.outcome = "ok";
        else if (reply.raw === "" && reply.closed) attempt.outcome = "unserved";
        else attempt.detail = `${reply.status} ${reply.body.slice(0, 40)} closed=${reply.closed}`;
      } catch (error) {
        attempt.outcome = "refused";
        attempt.detail = (error as Error).message;
        await Bun.sleep(5);
      }
    }
  };
  const clients = Array.from({ length: 64 }, client);
  await Bun.sleep(1500);
  const signalAt = performance.now();
  program.proc.kill("SIGTERM");
  const code = await program.stop("SIGTERM");
  const exitedAt = performance.now();
  await Bun.sleep(100);
  stopLoad = true;
  await Promise.all(clients);

  const accepted = new Set([...program.stdout().matchAll(/^start (\d+)$/gm)].map((m) => Number(m[1])));
  const acceptedAttempts = attempts.filter((a) => accepted.has(a.id));
  const lost = acceptedAttempts.filter((a) => a.outcome !== "ok");
  // Accepted before the signal and answered after it: what the drain had to wait for.
  const inFlightAtSignal = acceptedAttempts.filter(
    (a) => a.sentAt < signalAt && a.sentAt > signalAt - 500 && a.answeredAt > signalAt,
  );
  const sentWellBefore = attempts.filter((a) => a.sentAt < signalAt - 100);
  const afterSignal = attempts.filter((a) => a.sentAt > signalAt);
  return {
    code,
    attempts,
    accepted,
    lost,
    inFlightAtSignal,
    sentWellBefore,
    afterSignal,
    drainMs: exitedAt - signalAt,
  };
}

describe("SIGTERM under load", () => {
  for (const [name, flags, listening] of [
    ["one process", [] as string[], 1],
    ["--processes 2", ["--processes", "2"], 2],
  ] as const) {
    test(`${name}: every accepted request is answered; the process exits 0`, async () => {
      const run = await drainUnderLoad([...flags], listening);
      expect(run.code).toBe(0);
      expect(run.accepted.size).toBeGreaterThan(100);
      expect(run.inFlightAtSignal.length).toBeGreaterThan(10);
      expect(run.drainMs).toBeGreaterThan(100); // it did wait for them
      expect(run.lost.map((a) => `${a.id}: ${a.detail}`)).toEqual([]);
      // A request fully sent well before the signal was accepted, not dropped in the listen backlog.
      expect(
        run.sentWellBefore.filter((a) => a.outcome !== "ok").map((a) => `${a.id}: ${a.outcome} ${a.detail}`),
      ).toEqual([]);
      // After the signal nothing is half-served: a new request is refused at connect, or its connection (caught in
      // the listen backlog as the listener closed) is closed before a single byte of answer; a client may retry both.
      expect(
        run.afterSignal.filter((a) => a.outcome === "failed").map((a) => `${a.id}: ${a.detail}`),
      ).toEqual([]);
      results.add({
        group: "SIGTERM drain",
        input: `SIGTERM with 64 clients of 200-500 ms requests (${name})`,
        outcome: `${run.accepted.size} accepted, ${run.inFlightAtSignal.length} in flight at the signal, 0 lost; later attempts: ${count(run.afterSignal, "refused")} refused at connect, ${count(run.afterSignal, "unserved")} closed unanswered (backlog); exit 0 after ${Math.round(run.drainMs)} ms`,
        survived: true,
      });
    }, 60_000);
  }
});
