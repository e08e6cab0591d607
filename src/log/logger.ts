/**
 * A small structured logger: one logfmt-style line per event,
 * `time=… level=INFO msg="…" key=value`, so that `grep`, Loki, Vector or any
 * log shipper can split fields without a JSON parser.
 */

export const LOG_LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Receives one finished line, without the trailing newline. */
export type LogSink = (line: string, level: LogLevel) => void;

export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  readonly level: LogLevel;
  setLevel(level: LogLevel): void;
  setSink(sink: LogSink): void;
  /** True when an event at `level` would be written: check it before building costly fields. */
  enabled(level: LogLevel): boolean;
  log(level: LogLevel, msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warning(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /**
   * The per-request line, at INFO:
   * `msg="GET /x 200" method=GET path=/x status=200 duration_ms=1.234 request_id=0191…`.
   */
  accessLog(method: string, path: string, status: number, durationMs: number, requestId?: string): void;
}

const RANK: Record<LogLevel, number> = { DEBUG: 10, INFO: 20, WARNING: 30, ERROR: 40 };

/** Writes to stderr: stdout stays free for a program's own output (and `--help`, `--version`). */
export const stderrSink: LogSink = (line) => {
  process.stderr.write(`${line}\n`);
};

// A bare value needs no quotes when it has no space, quote, `=` or control character.
const BARE = /^[^\s"=\\\p{Cc}]+$/u;

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
  if (text !== "" && BARE.test(text)) return text;
  return `"${text.replace(/[\\"\n\r\t]|\p{Cc}/gu, escapeChar)}"`;
}

function escapeChar(ch: string): string {
  switch (ch) {
    case "\\":
      return "\\\\";
    case '"':
      return '\\"';
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    case "\t":
      return "\\t";
    default:
      return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
  }
}

// Keys come from code, but a stray space or `=` would break parsing downstream.
function formatKey(key: string): string {
  return key.replace(/[^\w.-]/g, "_") || "_";
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

  const log = (lvl: LogLevel, msg: string, fields?: LogFields): void => {
    if (RANK[lvl] < threshold) return;
    write(formatLine(clock(), lvl, msg, fields), lvl);
  };

  return {
    get level() {
      return currentLevel;
    },
    setLevel(next) {
      currentLevel = next;
      threshold = RANK[next];
    },
    setSink(next) {
      write = next;
    },
    enabled: (lvl) => RANK[lvl] >= threshold,
    log,
    debug: (msg, fields) => log("DEBUG", msg, fields),
    info: (msg, fields) => log("INFO", msg, fields),
    warning: (msg, fields) => log("WARNING", msg, fields),
    error: (msg, fields) => log("ERROR", msg, fields),
    accessLog(method, path, status, durationMs, requestId) {
      // The level check comes first so that a disabled access log costs one comparison per request.
      if (RANK.INFO < threshold) return;
      write(
        formatLine(clock(), "INFO", `${method} ${path} ${status}`, {
          method,
          path,
          status,
          duration_ms: Math.round(durationMs * 1000) / 1000,
          request_id: requestId,
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
