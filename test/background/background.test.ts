/**
 * Background tasks over real HTTP (docs/events.md): the client has its response
 * before the task ends; tasks run in order, sync or async; a failing task is
 * logged with the request id and never reaches the client; tasks of a failed
 * handler are dropped; offloaded handlers run theirs on the Worker; stopping
 * the server waits for running tasks within the drain timeout.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import app, { exportsDone, outbox } from "../../examples/background.ts";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { logger, stderrSink } from "../../src/log/logger.ts";

const lines: string[] = [];
const reportFile = join(tmpdir(), `webfw-background-${process.pid}-${Date.now()}.jsonl`);
let server: ServerHandle;
beforeAll(async () => {
  logger.setSink((line) => {
    lines.push(line);
  });
  process.env.BACKGROUND_REPORT_FILE = reportFile;
  server = await app.start({ port: 0, workers: 2, accessLog: false });
});
afterAll(async () => {
  await server.stop();
  logger.setSink(stderrSink);
  rmSync(reportFile, { force: true });
});

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(10);
  }
}

describe("request.background (examples/background.ts, --workers 2)", () => {
  test("the answer comes at once; the mail is sent afterwards, with the request id", async () => {
    const response = await fetch(`${server.url}/signup`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "signup-1" },
      body: JSON.stringify({ email: "ada@example.com" }),
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ email: "ada@example.com", status: "created" });
    // The task takes 100 ms: the client already has its whole answer and the mail is not out yet.
    expect(outbox.some((mail) => mail.to === "ada@example.com")).toBe(false);
    await until(() => outbox.some((mail) => mail.to === "ada@example.com"));
    expect(outbox.find((mail) => mail.to === "ada@example.com")?.requestId).toBe("signup-1");
  });

  test("a failing task is logged with the request id; the client got its 201; later tasks still run", async () => {
    const response = await fetch(`${server.url}/signup`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "signup-down" },
      body: JSON.stringify({ email: "bob@down.example" }),
    });
    expect(response.status).toBe(201);
    expect(await response.text()).not.toContain("SMTP");
    await until(() => lines.some((line) => line.includes("background task failed")));
    const line = lines.find((l) => l.includes("background task failed")) as string;
    expect(line).toContain("level=ERROR");
    expect(line).toContain("request_id=signup-down");
    expect(line).toContain("path=/signup");
    expect(line).toContain("SMTP refused bob@down.example");
  });

  test("a streamed answer's task runs after its last chunk, with the request id", async () => {
    const response = await fetch(`${server.url}/export`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("row 1\nrow 2\nrow 3\n");
    await until(() => exportsDone.length === 1);
    expect(exportsDone[0]).toEqual({ rows: 3, requestId: response.headers.get("x-request-id") as string });
  });

  test("an offloaded handler's task runs on its Worker, with the same request id", async () => {
    const response = await fetch(`${server.url}/report`, { headers: { "x-request-id": "report-7" } });
    expect(await response.json()).toEqual({ queued: true });
    await until(() => existsSync(reportFile) && readFileSync(reportFile, "utf8").includes("report-7"));
    const entry = readFileSync(reportFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { requestId: string; onWorker: boolean })
      .find((e) => e.requestId === "report-7");
    expect(entry).toEqual({ requestId: "report-7", onWorker: true });
  });

  test("bad input: background() refuses what is not a function (500), the body schema still answers 422", async () => {
    const bad = await fetch(`${server.url}/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "x" }),
    });
    expect(bad.status).toBe(422);
    const local = new Webfw(import.meta.path);
    local.get("/", (request) => {
      request.background("not a function" as unknown as () => void);
      return "never";
    });
    expect((await local.request("/")).status).toBe(500);
  });
});

describe("ordering, failures and shutdown", () => {
  test("the client has its response before the task ends; tasks run in order, sync and async", async () => {
    const events: string[] = [];
    const { promise: gate, resolve: release } = Promise.withResolvers<void>();
    const local = new Webfw(import.meta.path);
    local.get("/", (request) => {
      request.background(async () => {
        events.push("first started");
        await gate;
        events.push("first finished");
      });
      request.background(() => {
        events.push("second (sync)");
      });
      events.push("handler");
      return "answered";
    });
    const handle = await local.start({ port: 0, accessLog: false });
    try {
      const response = await fetch(`${handle.url}/`);
      // The whole body is here while the first task is still blocked on the gate.
      expect(await response.text()).toBe("answered");
      await until(() => events.includes("first started"));
      expect(events).toEqual(["handler", "first started"]);
      release();
      await until(() => events.length === 4);
      expect(events).toEqual(["handler", "first started", "first finished", "second (sync)"]);
    } finally {
      release();
      await handle.stop();
    }
  });

  test("tasks of a handler that throws are dropped", async () => {
    let ran = false;
    const local = new Webfw(import.meta.path);
    local.get("/", (request) => {
      request.background(() => {
        ran = true;
      });
      throw new Error("handler failed");
    });
    const handle = await local.start({ port: 0, accessLog: false });
    try {
      expect((await fetch(`${handle.url}/`)).status).toBe(500);
      await Bun.sleep(50);
      expect(ran).toBe(false);
    } finally {
      await handle.stop();
    }
  });

  test("stop() waits for running tasks before the shutdown handlers, within the drain timeout", async () => {
    const events: string[] = [];
    const local = new Webfw(import.meta.path);
    local.shutdownHandler(() => {
      events.push("shutdown handler");
    });
    local.get("/", (request) => {
      request.background(async () => {
        await Bun.sleep(300);
        events.push("task finished");
      });
      return "ok";
    });
    const handle = await local.start({ port: 0, accessLog: false, drainTimeoutMs: 5_000 });
    expect(await (await fetch(`${handle.url}/`)).text()).toBe("ok");
    await Bun.sleep(20);
    await handle.stop();
    expect(events).toEqual(["task finished", "shutdown handler"]);
  });

  test("a task longer than the drain timeout does not hold the stop", async () => {
    const local = new Webfw(import.meta.path);
    let finished = false;
    local.get("/", (request) => {
      request.background(async () => {
        await Bun.sleep(3_000);
        finished = true;
      });
      return "ok";
    });
    const handle = await local.start({ port: 0, accessLog: false, drainTimeoutMs: 200 });
    await (await fetch(`${handle.url}/`)).text();
    await Bun.sleep(20);
    const started = performance.now();
    await handle.stop();
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(finished).toBe(false);
    expect(lines.some((line) => line.includes("background tasks still running at shutdown"))).toBe(true);
  });
});
