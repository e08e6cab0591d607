/**
 * Finding 4 of issue #13: body memory is bounded in total, not only per
 * request. A body that does not fit the in-flight budget gets 503 and its
 * connection is closed; a body that stalls is dropped after the body read
 * timeout (408), separate from Bun's idle timeout. The scenario of the
 * finding, 200 connections each stalling one byte short of a 10 MiB body,
 * keeps the server's peak RSS under the budget + 64 MiB.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { launchProgram } from "../faults/spawn.ts";
import { Results, startQuiet } from "./helpers.ts";
import { rawExchange, rawPost } from "./raw-client.ts";

const MiB = 1024 * 1024;
const results = new Results("body-budget");
afterAll(() => results.write());

/** Opens a POST with `Content-Length: length`, sends `sent` bytes and stalls; resolves with what came back. */
function stalledUpload(port: number, length: number, sent: number) {
  const socket: Socket = connect(port, "127.0.0.1");
  let data = "";
  let closed = false;
  socket.on("data", (chunk) => {
    data += chunk.toString("latin1");
  });
  socket.on("error", () => {});
  const done = new Promise<void>((resolve) =>
    socket.on("close", () => {
      closed = true;
      resolve();
    }),
  );
  socket.on("connect", () => {
    socket.write(`POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${length}\r\n\r\n`);
    // In pieces, so a socket the server closed stops taking bytes early.
    const piece = Buffer.alloc(Math.min(sent, MiB), 120);
    let left = sent;
    const pump = () => {
      while (left > 0 && !socket.destroyed) {
        const n = Math.min(left, piece.length);
        left -= n;
        if (!socket.write(n === piece.length ? piece : piece.subarray(0, n))) {
          socket.once("drain", pump);
          return;
        }
      }
    };
    pump();
  });
  return {
    done,
    status: () => Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0),
    text: () => data,
    closed: () => closed,
    destroy: () => socket.destroy(),
  };
}

describe("in-flight body budget and read timeout", () => {
  let handle: ServerHandle;
  beforeAll(async () => {
    const app = new Webfw(import.meta.path, {
      openapi: false,
      maxBodyBuffer: MiB,
      bodyReadTimeoutMs: 600,
    });
    app.post("/upload", (r) => `got ${r.bodyBytes.length}`);
    handle = await startQuiet(app);
  });
  afterAll(async () => {
    await handle.stop(true);
  });

  test("a body over the budget gets 503 at once and its connection closes; a stalled one 408", async () => {
    const first = stalledUpload(handle.port, 800_000, 100);
    await Bun.sleep(100);
    const started = Date.now();
    const second = stalledUpload(handle.port, 800_000, 100);
    await second.done;
    expect(second.status()).toBe(503);
    expect(second.text().toLowerCase()).toContain("retry-after: 1");
    expect(Date.now() - started).toBeLessThan(500);
    results.add({ group: "body budget", input: "second 800 kB body, 1 MiB budget", outcome: "503" });
    await first.done;
    expect(first.status()).toBe(408);
    results.add({ group: "body budget", input: "body stalled past bodyReadTimeoutMs", outcome: "408" });
    // The budget came back: a whole body fits again.
    const ok = await rawPost(handle.port, "/upload", "x".repeat(800_000));
    expect(ok.status).toBe(200);
    expect(ok.body).toBe("got 800000");
  });

  test("chunked bodies count chunk by chunk", async () => {
    const first = stalledUpload(handle.port, 900_000, 100);
    await Bun.sleep(100);
    const chunk = "y".repeat(200_000);
    const body = `${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`;
    const reply = await rawExchange(
      handle.port,
      `POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(reply.status).toBe(503);
    first.destroy();
    await first.done;
    await Bun.sleep(50);
    const again = await rawExchange(
      handle.port,
      `POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(again.status).toBe(200);
    expect(again.body).toBe("got 200000");
  });

  test("a client that disconnects gives its reservation back", async () => {
    for (let i = 0; i < 5; i++) {
      const upload = stalledUpload(handle.port, 900_000, 1000);
      await Bun.sleep(30);
      upload.destroy();
      await upload.done;
    }
    await Bun.sleep(100);
    const ok = await rawPost(handle.port, "/upload", "z".repeat(900_000));
    expect(ok.status).toBe(200);
  });
});

function rssKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
}

test("200 connections stalling one byte short of 10 MiB: peak RSS growth under budget + 64 MiB", async () => {
  const program = await launchProgram(join(import.meta.dir, "fixtures/budget-app.ts"), []);
  const pid = program.proc.pid;
  try {
    const before = rssKb(pid, "VmRSS");
    const uploads = [];
    for (let i = 0; i < 200; i++) uploads.push(stalledUpload(program.port, 10 * MiB, 10 * MiB - 1));
    // Everything either refused (503, closed) or stalled; then the read timeout (4 s) drops the rest.
    await Promise.race([Promise.all(uploads.map((u) => u.done)), Bun.sleep(15_000)]);
    const peak = rssKb(pid, "VmHWM");
    const growthMiB = (peak - before) / 1024;
    const statuses = new Map<number, number>();
    for (const u of uploads) statuses.set(u.status(), (statuses.get(u.status()) ?? 0) + 1);
    for (const u of uploads) u.destroy();
    results.add({
      group: "body budget",
      input: "200 × (10 MiB − 1 byte) stalled, 128 MiB budget",
      outcome: `peak RSS +${growthMiB.toFixed(0)} MiB; ${[...statuses].map(([s, n]) => `${n}×${s}`).join(", ")}`,
    });
    console.log(
      `body budget: RSS ${before} kB before, peak ${peak} kB (+${growthMiB.toFixed(1)} MiB)`,
      statuses,
    );
    expect(uploads.every((u) => u.closed())).toBe(true);
    // At most the budget's worth of bodies was taken (12 × 10 MiB in 128 MiB), and they timed out.
    // The rest were refused: 503 and closed; a client still writing when the server closes gets a
    // reset instead of the 503 (status 0 here), which is the same refusal as TCP sees it.
    expect(statuses.get(408) ?? 0).toBeLessThanOrEqual(12);
    expect(statuses.get(200) ?? 0).toBe(0);
    expect((statuses.get(408) ?? 0) + (statuses.get(503) ?? 0) + (statuses.get(0) ?? 0)).toBe(200);
    expect(growthMiB).toBeLessThan(128 + 64);
    // And it still serves.
    expect((await fetch(`${program.url}/health`)).status).toBe(200);
  } finally {
    await program.stop();
  }
}, 60_000);
