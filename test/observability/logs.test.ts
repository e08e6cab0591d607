/**
 * `--log-format json`: the access and error logs of a real program as JSON
 * lines, with the route, status, duration and (with tracing) the trace id;
 * the text format keeps its logfmt lines and gains the route. Plus the flag's
 * parsing and its bad values.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseFlags } from "../../src/launch/flags.ts";
import { createLogger } from "../../src/log/logger.ts";
import { launchProgram, type Program } from "../faults/spawn.ts";
import { type OtlpReceiver, startOtlpReceiver } from "../helpers/otlp-receiver.ts";

const APP = join(import.meta.dir, "fixtures/traced-app.ts");
const FIXED = new Date("2025-01-02T03:04:05.678Z");

type Line = Record<string, unknown>;

/** The JSON lines of a program's stderr; fails on any line that is not one JSON object. */
function jsonLines(stderr: string): Line[] {
  return stderr
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const value = JSON.parse(line) as unknown;
      expect(typeof value).toBe("object");
      return value as Line;
    });
}

async function lineFor(program: Program, predicate: (line: Line) => boolean): Promise<Line> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const found = jsonLines(program.stderr()).find(predicate);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no such log line in:\n${program.stderr()}`);
    await Bun.sleep(50);
  }
}

describe("the logger's JSON format", () => {
  test("one object per line: time, level, msg first, then the fields; errors as objects", () => {
    const lines: string[] = [];
    const log = createLogger("INFO", (line) => lines.push(line), { clock: () => FIXED, format: "json" });
    const cause = new RangeError("inner");
    log.error("bad\nthing", { error: new Error("outer", { cause }), count: 3n, msg: "not the message" });
    log.accessLog("GET", "/users/7", 200, 1.23456, { route: "/users/:id", traceId: "ab".repeat(16) });
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => !line.includes("\n"))).toBe(true);
    const error = JSON.parse(lines[0] as string);
    expect(Object.keys(error).slice(0, 3)).toEqual(["time", "level", "msg"]);
    expect(error).toMatchObject({
      time: "2025-01-02T03:04:05.678Z",
      level: "ERROR",
      msg: "bad\nthing",
      count: "3",
    });
    expect(error.error).toMatchObject({
      type: "Error",
      message: "outer",
      cause: { type: "RangeError", message: "inner" },
    });
    expect(error.error.stack).toContain("outer");
    expect(JSON.parse(lines[1] as string)).toEqual({
      time: "2025-01-02T03:04:05.678Z",
      level: "INFO",
      msg: "GET /users/7 200",
      method: "GET",
      path: "/users/7",
      route: "/users/:id",
      status: 200,
      duration_ms: 1.235,
      trace_id: "ab".repeat(16),
    });
  });

  test("a value JSON cannot carry (a cycle) does not lose the event", () => {
    const lines: string[] = [];
    const log = createLogger("INFO", (line) => lines.push(line), { clock: () => FIXED, format: "json" });
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    log.info("cycle", { cycle, fn: () => 1 });
    expect(JSON.parse(lines[0] as string)).toMatchObject({ msg: "cycle", cycle: "[object Object]" });
  });

  test("setFormat switches live and refuses unknown formats", () => {
    const lines: string[] = [];
    const log = createLogger("INFO", (line) => lines.push(line), { clock: () => FIXED });
    log.info("a");
    log.setFormat("json");
    log.info("b");
    expect(lines[0]).toBe("time=2025-01-02T03:04:05.678Z level=INFO msg=a");
    expect(JSON.parse(lines[1] as string).msg).toBe("b");
    expect(() => log.setFormat("xml" as "json")).toThrow(/unknown log format/);
  });
});

describe("--log-format, --otel, --metrics flags", () => {
  test("values, case and defaults", () => {
    expect(parseFlags([]).logFormat).toBe("text");
    expect(parseFlags(["--log-format", "json"]).logFormat).toBe("json");
    expect(parseFlags(["--log-format=JSON"]).logFormat).toBe("json");
    expect(parseFlags(["--otel"]).otel).toBe(true);
    expect(parseFlags([]).otel).toBe(false);
    expect(parseFlags(["--metrics"]).metrics).toBe(true);
  });

  test("bad values are refused with the allowed ones named", () => {
    expect(() => parseFlags(["--log-format", "xml"])).toThrow(
      /--log-format must be one of text, json, got "xml"/,
    );
    expect(() => parseFlags(["--log-format"])).toThrow(/--log-format needs a value/);
    expect(() => parseFlags(["--otel=maybe"])).toThrow(/--otel is a switch/);
  });

  test("a bad --log-format exits 2 with the usage, as every bad flag does", async () => {
    const proc = Bun.spawn([process.execPath, APP, "--log-format", "yaml"], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code).toBe(2);
    expect(stderr).toContain("--log-format must be one of text, json");
  });
});

describe("--log-format json on a real server, with --otel", () => {
  let receiver: OtlpReceiver;
  let program: Program;

  beforeAll(async () => {
    receiver = startOtlpReceiver();
    program = await launchProgram(APP, ["--log-level", "INFO", "--log-format", "json", "--otel"], {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" },
    });
  });
  afterAll(async () => {
    await program?.stop();
    receiver?.stop();
  });

  test("the access line: method, path, route, status, duration and the request's trace id", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const response = await fetch(`${program.url}/users/42`, {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, "x-request-id": "log-test-42" },
    });
    expect(response.status).toBe(200);
    const line = await lineFor(program, (l) => l.path === "/users/42");
    expect(line).toMatchObject({
      level: "INFO",
      msg: "GET /users/42 200",
      method: "GET",
      route: "/users/:id",
      status: 200,
      request_id: "log-test-42",
      trace_id: traceId,
    });
    expect(typeof line.duration_ms).toBe("number");
    expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(Number.isNaN(Date.parse(line.time as string))).toBe(false);
    // The log line and the exported span name the same span.
    await receiver.waitFor((spans) => spans.some((s) => s.spanId === line.span_id && s.traceId === traceId));
  });

  test("404 has no route; the error line of a 500 carries the error as an object and the trace id", async () => {
    expect((await fetch(`${program.url}/missing`)).status).toBe(404);
    const missing = await lineFor(program, (l) => l.path === "/missing");
    expect(missing.status).toBe(404);
    expect("route" in missing).toBe(false);

    expect((await fetch(`${program.url}/boom`)).status).toBe(500);
    const error = await lineFor(program, (l) => l.level === "ERROR" && String(l.url).endsWith("/boom"));
    expect(error.msg).toBe("unhandled error in handler");
    expect(error.error).toMatchObject({ type: "TypeError", message: "the handler broke" });
    const access = await lineFor(program, (l) => l.path === "/boom");
    expect(access.status).toBe(500);
    expect(error.trace_id).toBe(access.trace_id);
    expect(error.span_id).toBe(access.span_id);
  });

  test("every line on stderr is JSON (startup and shutdown lines too)", () => {
    const lines = jsonLines(program.stderr());
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(typeof line.level).toBe("string");
  });
});

describe("text format: logfmt lines with the route, no trace id without tracing", () => {
  let program: Program;

  beforeAll(async () => {
    program = await launchProgram(APP, ["--log-level", "INFO"]);
  });
  afterAll(async () => {
    await program?.stop();
  });

  test("the access line", async () => {
    expect((await fetch(`${program.url}/users/5`)).status).toBe(200);
    const deadline = Date.now() + 5_000;
    let line: string | undefined;
    while (!line && Date.now() < deadline) {
      line = program
        .stderr()
        .split("\n")
        .find((l) => l.includes("path=/users/5"));
      if (!line) await Bun.sleep(50);
    }
    expect(line).toMatch(
      /^time=\S+ level=INFO msg="GET \/users\/5 200" method=GET path=\/users\/5 route=\/users\/:id status=200 duration_ms=[\d.]+ client=127\.0\.0\.1 request_id=\S+$/,
    );
  });
});
