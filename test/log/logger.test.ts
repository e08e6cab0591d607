import { describe, expect, test } from "bun:test";
import {
  createLogger,
  formatLine,
  formatValue,
  type LogLevel,
  logger,
  parseLogLevel,
  setLogLevel,
} from "../../src/log/logger.ts";

const FIXED = new Date("2025-01-02T03:04:05.678Z");

function capture(level: LogLevel = "INFO") {
  const lines: string[] = [];
  const log = createLogger(level, (line) => lines.push(line), { clock: () => FIXED });
  return { log, lines };
}

describe("logger", () => {
  test("one logfmt line per event, fields after the message", () => {
    const { log, lines } = capture();
    log.info("server started", { url: "http://127.0.0.1:8080/", pid: 42, tls: false });
    expect(lines).toEqual([
      'time=2025-01-02T03:04:05.678Z level=INFO msg="server started" url=http://127.0.0.1:8080/ pid=42 tls=false',
    ]);
  });

  test("levels below the threshold are dropped", () => {
    const { log, lines } = capture("WARNING");
    log.debug("d");
    log.info("i");
    log.warning("w");
    log.error("e");
    expect(lines.map((l) => l.split(" ")[1])).toEqual(["level=WARNING", "level=ERROR"]);
    expect(log.enabled("INFO")).toBe(false);
    expect(log.enabled("ERROR")).toBe(true);
  });

  test("DEBUG lets everything through; setLevel changes it live", () => {
    const { log, lines } = capture("DEBUG");
    log.debug("one");
    log.setLevel("ERROR");
    log.debug("two");
    log.warning("three");
    log.error("four");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("level=DEBUG msg=one");
    expect(lines[1]).toContain("level=ERROR msg=four");
    expect(log.level).toBe("ERROR");
  });

  test("accessLog: method, path, status, duration at INFO", () => {
    const { log, lines } = capture();
    log.accessLog("GET", "/users/7", 200, 1.23456);
    expect(lines).toEqual([
      'time=2025-01-02T03:04:05.678Z level=INFO msg="GET /users/7 200" method=GET path=/users/7 status=200 duration_ms=1.235',
    ]);
  });

  test("accessLog is silent above INFO and does not even read the clock", () => {
    let reads = 0;
    const lines: string[] = [];
    const log = createLogger("WARNING", (l) => lines.push(l), {
      clock: () => {
        reads++;
        return FIXED;
      },
    });
    for (let i = 0; i < 1000; i++) log.accessLog("GET", "/", 200, 0.1);
    log.info("ignored");
    expect(lines).toEqual([]);
    expect(reads).toBe(0);
  });

  test("values are quoted and escaped so an event stays on one line", () => {
    const { log, lines } = capture();
    log.error("bad\nthing", {
      path: '/a b"c',
      empty: "",
      nothing: null,
      skipped: undefined,
      obj: { a: 1 },
      list: [1, 2],
      "weird key": "x=y",
      tab: "a\tb",
      ctrl: "\u0001",
    });
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).not.toContain("\n");
    expect(line).toContain('msg="bad\\nthing"');
    expect(line).toContain('path="/a b\\"c"');
    expect(line).toContain('empty=""');
    expect(line).toContain("nothing=null");
    expect(line).not.toContain("skipped");
    expect(line).toContain('obj="{\\"a\\":1}"');
    expect(line).toContain("list=[1,2]");
    expect(line).toContain('weird_key="x=y"');
    expect(line).toContain('tab="a\\tb"');
    expect(line).toContain('ctrl="\\u0001"');
  });

  test("errors are logged with their stack on one line", () => {
    const { log, lines } = capture();
    log.error("handler failed", { error: new TypeError("boom") });
    expect(lines[0]).toMatch(/error="TypeError: boom\\n\s*at /);
  });

  test("formatValue and formatLine", () => {
    expect(formatValue("plain")).toBe("plain");
    expect(formatValue(3.5)).toBe("3.5");
    expect(formatValue(10n)).toBe("10");
    expect(formatValue("")).toBe('""');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(formatValue(cyclic)).toBe('"[object Object]"');
    expect(formatLine(FIXED, "WARNING", "x")).toBe("time=2025-01-02T03:04:05.678Z level=WARNING msg=x");
  });

  test("setSink redirects output", () => {
    const { log, lines } = capture();
    const other: string[] = [];
    log.setSink((l) => other.push(l));
    log.info("moved");
    expect(lines).toEqual([]);
    expect(other).toHaveLength(1);
  });

  test("parseLogLevel", () => {
    expect(parseLogLevel("debug")).toBe("DEBUG");
    expect(parseLogLevel(" Warn ")).toBe("WARNING");
    expect(parseLogLevel("ERROR")).toBe("ERROR");
    expect(parseLogLevel("verbose")).toBeUndefined();
  });

  test("the process-wide logger is settable", () => {
    const before = logger.level;
    try {
      setLogLevel("ERROR");
      expect(logger.level).toBe("ERROR");
      expect(logger.enabled("INFO")).toBe(false);
    } finally {
      setLogLevel(before);
    }
  });

  test("the default sink writes to stderr", async () => {
    const script = `import { createLogger } from ${JSON.stringify(`${import.meta.dir}/../../src/log/logger.ts`)};
const log = createLogger("INFO");
log.info("to stderr", { n: 1 });
log.debug("hidden");`;
    const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
    ]);
    expect(await proc.exited).toBe(0);
    expect(out).toBe("");
    expect(err).toMatch(/^time=\S+ level=INFO msg="to stderr" n=1\n$/);
  });
});
