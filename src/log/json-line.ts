/**
 * `--log-format json`: one JSON object per line, for log shippers that index
 * fields (Loki with `| json`, Elasticsearch, Datadog, CloudWatch Insights).
 * Keys are the same as the logfmt format's (`time`, `level`, `msg`, then the
 * event's fields), so switching formats changes the encoding, not the names.
 */

/** An Error as data: its stack carries the name and message already, but both are kept for queries. */
function errorValue(error: Error): Record<string, unknown> {
  const out: Record<string, unknown> = { type: error.name, message: error.message };
  if (error.stack) out.stack = error.stack;
  const cause = (error as { cause?: unknown }).cause;
  if (cause !== undefined) out.cause = cause instanceof Error ? errorValue(cause) : safeValue(cause);
  return out;
}

/** A field value JSON can carry: errors become objects, bigints strings, anything unserialisable its String(). */
function safeValue(value: unknown): unknown {
  if (value instanceof Error) return errorValue(value);
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "function" || typeof value === "symbol") return String(value);
  if (typeof value === "object" && value !== null) {
    try {
      // A cycle or a throwing toJSON must not lose the event: fall back to the value's text.
      JSON.stringify(value);
      return value;
    } catch {
      return String(value);
    }
  }
  return value;
}

/** Formats one event as one JSON line (no newline inside: JSON.stringify escapes control characters). */
export function formatJsonLine(
  time: Date,
  level: string,
  msg: string,
  fields?: Readonly<Record<string, unknown>>,
): string {
  const event: Record<string, unknown> = { time: time.toISOString(), level, msg };
  if (fields) {
    for (const key in fields) {
      const value = fields[key];
      // The three leading keys are the event's own; a field may not overwrite them.
      if (value === undefined || key === "time" || key === "level" || key === "msg") continue;
      event[key] = safeValue(value);
    }
  }
  return JSON.stringify(event);
}
