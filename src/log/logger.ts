/**
 * A small structured logger: one logfmt-style line per event,
 * `time=… level=INFO msg="…" key=value`, so that `grep`, Loki, Vector or any
 * log shipper can split fields without a JSON parser; or, with
 * `--log-format json`, one JSON object per line (src/log/json-line.ts).
 */
import { ASCII_CLASS, isNonAsciiSpace, WORD } from "../char-classes.ts";
import { formatJsonLine } from "./json-line.ts";

export const LOG_LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Receives one finished line, without the trailing newline. */
export type LogSink = (line: string, level: LogLevel) => void;

export type LogFields = Readonly<Record<string, unknown>>;

export const LOG_FORMATS = ["text", "json"] as const;
/** `text`: logfmt (`key=value`); `json`: one JSON object per line. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * What the access line knows beyond method, path, status and duration. Absent
 * values are left out of the line (a request id only exists when request ids
 * are on, a trace id only when a span is being recorded).
 */
export interface AccessLogFields {
  /** The matched route pattern (`/users/:id`); absent for 404s. */
  route?: string;
  /** The request id (`request.id`, also sent as `X-Request-Id`). */
  requestId?: string;
  /** The client's full address (`request.ipAddr`: behind `trustProxy`, the one the proxies report). */
  client?: string | null;
  /** The W3C trace id of the request's server span, when it is sampled. */
  traceId?: string;
  spanId?: string;
}

export interface Logger {
  readonly level: LogLevel;
  readonly format: LogFormat;
  setLevel(level: LogLevel): void;
  setFormat(format: LogFormat): void;
  setSink(sink: LogSink): void;
  /** Where lines go now (the dashboard taps it, src/dashboard/log-tap.ts). */
  readonly sink: LogSink;
  /** True when an event at `level` would be written: check it before building costly fields. */
  enabled(level: LogLevel): boolean;
  log(level: LogLevel, msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warning(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /**
   * A line an operator must always see (the startup line, docs/cli.md): written at INFO whatever
   * the level, so `--fast` (which sets WARNING) and `--log-level ERROR` still say where the app listens.
   */
  announce(msg: string, fields?: LogFields): void;
  /**
   * The per-request line, at INFO: `msg="GET /x 200" method=GET path=/x status=200 duration_ms=1.234`,
   * then `route`, `request_id`, `trace_id`, `span_id` when known.
   */
  accessLog(method: string, path: string, status: number, durationMs: number, extra?: AccessLogFields): void;
}

const RANK: Record<LogLevel, number> = { DEBUG: 10, INFO: 20, WARNING: 30, ERROR: 40 };

/**
 * The console's own stderr writer, taken when this module loads so that a test's or an app's later
 * `console.error = …` (or a spy) neither swallows nor sees the framework's lines.
 */
const writeStderrLine = console.error;

/**
 * Writes to stderr: stdout stays free for a program's own output (and `--help`, `--version`).
 * Through the console's native writer: synchronous, one line per call (a single string argument is
 * written as it is, `%` included), so a slow reader of a pipe holds the writer back as Node's
 * `process.stderr` does on pipes and files. `process.stderr` itself is a Node stream whose first
 * use loads Node's stream machinery (+2.5 MB resident in a server, +5.9 MB over bare `bun`), and
 * `Bun.stderr.writer()` with a flush per line (used before) cost the one-route app ~0.5 MB of idle
 * RSS for its startup line, at the same speed per line (docs/performance.md, "Issue 32, fourth
 * pass: idle memory").
 */
export const stderrSink: LogSink = (line) => {
  writeStderrLine(line);
};

/**
 * ASCII characters that make a value need quotes: controls and space (with DEL, what `\s` and
 * `\p{Cc}` match below 128), `"`, `=` and `\`. The checks below are loops, not regular
 * expressions: the first regular expression a process runs pages in ~0.8 MB of the engine, and the
 * startup line was the only one a one-route app ran after its build (docs/performance.md,
 * "Start-up without regular expressions").
 */
const QUOTED_ASCII = new Uint8Array(128);
for (let code = 0; code <= 0x20; code++) QUOTED_ASCII[code] = 1;
QUOTED_ASCII[0x22] = QUOTED_ASCII[0x3d] = QUOTED_ASCII[0x5c] = QUOTED_ASCII[0x7f] = 1;

/** A bare value needs no quotes when it is not empty and has no space, quote, `=`, `\` or control character. */
function needsQuotes(text: string): boolean {
  if (text === "") return true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 128 ? QUOTED_ASCII[code] === 1 : code <= 0x9f || isNonAsciiSpace(code)) return true;
  }
  return false;
}

/** Quotes and escapes a value so that one event always stays on one line. */
export function formatValue(value: unknown): string {
  let text: string;
  if (typeof value === "string") text = value;
  else if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  else if (value === null) return "null";
  else if (value instanceof Error) text = value.stack ?? `${value.name}: ${value.message}`;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return needsQuotes(text) ? quote(text) : text;
}

/** `"text"` with `\`, `"` and the control characters (Unicode Cc) escaped. */
function quote(text: string): string {
  let out = '"';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x20 && code !== 0x22 && code !== 0x5c && (code < 0x7f || code > 0x9f)) continue;
    out += text.slice(from, i) + escapeCode(code);
    from = i + 1;
  }
  return `${out}${text.slice(from)}"`;
}

function escapeCode(code: number): string {
  switch (code) {
    case 0x5c:
      return "\\\\";
    case 0x22:
      return '\\"';
    case 0x0a:
      return "\\n";
    case 0x0d:
      return "\\r";
    case 0x09:
      return "\\t";
    default:
      return `\\u${code.toString(16).padStart(4, "0")}`;
  }
}

/** Keys come from code, but a stray space or `=` would break parsing downstream: anything but `[A-Za-z0-9_.-]` becomes `_`. */
function formatKey(key: string): string {
  if (key === "") return "_";
  let out = "";
  let from = 0;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if ((code < 128 && (ASCII_CLASS[code] & WORD) !== 0) || code === 0x2e || code === 0x2d) continue; // `.`, `-`
    out += `${key.slice(from, i)}_`;
    from = i + 1;
  }
  return from === 0 ? key : out + key.slice(from);
}

/** Formats one event as a line (exported for tests and for custom sinks). */
export function formatLine(time: Date, level: LogLevel, msg: string, fields?: LogFields): string {
  let line = `time=${time.toISOString()} level=${level} msg=${formatValue(msg)}`;
  if (fields) {
    for (const key in fields) {
      const value = fields[key];
      if (value === undefined) continue;
      line += ` ${formatKey(key)}=${formatValue(value)}`;
    }
  }
  return line;
}

export interface LoggerOptions {
  /** Injected in tests to get a fixed `time=`. */
  clock?: () => Date;
  /** Default `text`. */
  format?: LogFormat;
}

export function createLogger(
  level: LogLevel = "INFO",
  sink: LogSink = stderrSink,
  options: LoggerOptions = {},
): Logger {
  const clock = options.clock ?? (() => new Date());
  let threshold = RANK[level];
  let currentLevel = level;
  let write = sink;
  let currentFormat: LogFormat = options.format ?? "text";
  let format = currentFormat === "json" ? formatJsonLine : formatLine;

  const log = (lvl: LogLevel, msg: string, fields?: LogFields): void => {
    if (RANK[lvl] < threshold) return;
    write(format(clock(), lvl, msg, fields), lvl);
  };

  return {
    get level() {
      return currentLevel;
    },
    get format() {
      return currentFormat;
    },
    setLevel(next) {
      currentLevel = next;
      threshold = RANK[next];
    },
    setFormat(next) {
      if (!LOG_FORMATS.includes(next)) throw new TypeError(`unknown log format '${String(next)}'`);
      currentFormat = next;
      format = next === "json" ? formatJsonLine : formatLine;
    },
    setSink(next) {
      write = next;
    },
    get sink() {
      return write;
    },
    enabled: (lvl) => RANK[lvl] >= threshold,
    log,
    debug: (msg, fields) => log("DEBUG", msg, fields),
    info: (msg, fields) => log("INFO", msg, fields),
    warning: (msg, fields) => log("WARNING", msg, fields),
    error: (msg, fields) => log("ERROR", msg, fields),
    announce: (msg, fields) => write(format(clock(), "INFO", msg, fields), "INFO"),
    accessLog(method, path, status, durationMs, extra) {
      // The level check comes first so that a disabled access log costs one comparison per request.
      if (RANK.INFO < threshold) return;
      write(
        format(clock(), "INFO", `${method} ${path} ${status}`, {
          method,
          path,
          route: extra?.route,
          status,
          duration_ms: Math.round(durationMs * 1000) / 1000,
          client: extra?.client ?? undefined,
          request_id: extra?.requestId,
          trace_id: extra?.traceId,
          span_id: extra?.spanId,
        }),
        "INFO",
      );
    },
  };
}

/** Parses a level name case-insensitively (`warn` is accepted for WARNING); undefined when unknown. */
export function parseLogLevel(name: string): LogLevel | undefined {
  const upper = name.trim().toUpperCase();
  if (upper === "WARN") return "WARNING";
  return (LOG_LEVELS as readonly string[]).includes(upper) ? (upper as LogLevel) : undefined;
}

/**
 * The process-wide logger. `app.start()` sets its level from `--log-level`;
 * framework modules log through it so one flag controls everything.
 */
export const logger: Logger = createLogger("INFO");

export function setLogLevel(level: LogLevel): void {
  logger.setLevel(level);
}

/** Parses a format name case-insensitively; undefined when unknown. */
export function parseLogFormat(name: string): LogFormat | undefined {
  const lower = name.trim().toLowerCase();
  return (LOG_FORMATS as readonly string[]).includes(lower) ? (lower as LogFormat) : undefined;
}
