/**
 * The dashboard's bounded memory (docs/dashboard.md): a ring of the last requests, each with its
 * log lines, and the spans of their traces. Old requests fall out with their spans and logs, so
 * the memory stays under a fixed bound whatever the traffic.
 */

export interface LogEntry {
  level: string;
  line: string;
}

export interface RequestRecord {
  /** Increasing number in this process (the SSE stream and the page order by it). */
  seq: number;
  /** The request id (src/request-id/: the client's sane `X-Request-Id`, else a UUIDv7). */
  id: string;
  method: string;
  path: string;
  /** The matched route pattern. */
  route: string;
  /** 0 while the request runs; 101 for a WebSocket upgrade. */
  status: number;
  /** Epoch milliseconds. */
  startedAt: number;
  durationMs: number;
  traceId: string | null;
  logs: LogEntry[];
  /** Lines past the per-request bound. */
  droppedLogs: number;
}

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentId: string | null;
  name: string;
  kind: string;
  /** Epoch milliseconds (fractional). */
  start: number;
  durationMs: number;
  status: "unset" | "ok" | "error";
  /** `main`, or `worker <threadId>` for a span a handler Worker recorded. */
  thread: string;
  attributes: Record<string, unknown>;
}

export interface RecordBounds {
  requests: number;
  spansPerTrace: number;
  logsPerRequest: number;
}

export const DEFAULT_BOUNDS: RecordBounds = { requests: 500, spansPerTrace: 200, logsPerRequest: 100 };

export type RecordEvent = { type: "request"; request: RequestRecord } | { type: "span"; span: SpanRecord };

/** One process's recent requests and spans; `listen` feeds the page's live stream. */
export class Records {
  private readonly requests: RequestRecord[] = [];
  private readonly byId = new Map<string, RequestRecord>();
  /** Spans by trace id, oldest trace first (a Map keeps insertion order). */
  private readonly traces = new Map<string, SpanRecord[]>();
  private readonly listeners = new Set<(event: RecordEvent) => void>();
  /** Log lines written outside any request (startup, background tasks). */
  readonly orphanLogs: LogEntry[] = [];
  private seq = 0;

  constructor(readonly bounds: RecordBounds = DEFAULT_BOUNDS) {}

  begin(method: string, path: string, route: string): RequestRecord {
    const record: RequestRecord = {
      seq: ++this.seq,
      id: "",
      method,
      path,
      route,
      status: 0,
      startedAt: Date.now(),
      durationMs: 0,
      traceId: null,
      logs: [],
      droppedLogs: 0,
    };
    return record;
  }

  /** The request answered: it enters the ring (the oldest leaves, with its spans) and the stream. */
  end(record: RequestRecord, status: number, id: string, durationMs: number): void {
    record.status = status;
    record.durationMs = durationMs;
    record.id = id;
    this.requests.push(record);
    this.byId.set(record.id, record);
    while (this.requests.length > this.bounds.requests) {
      const old = this.requests.shift() as RequestRecord;
      if (this.byId.get(old.id) === old) this.byId.delete(old.id);
      if (old.traceId !== null) this.traces.delete(old.traceId);
    }
    this.emit({ type: "request", request: record });
  }

  log(record: RequestRecord | undefined, line: string, level: string): void {
    const target = record?.logs ?? this.orphanLogs;
    if (target.length >= this.bounds.logsPerRequest) {
      if (record) {
        record.droppedLogs++;
        return;
      }
      target.shift();
    }
    target.push({ level, line });
  }

  /** A span started in `record`'s work: its trace is kept with it (the first span links it). */
  link(record: RequestRecord, traceId: string): void {
    if (record.traceId !== null) return;
    record.traceId = traceId;
    if (this.traces.has(traceId)) return;
    this.traces.set(traceId, []);
    // Requests still running are not in the ring yet: their traces are bounded too.
    while (this.traces.size > this.bounds.requests * 2) {
      const oldest = this.traces.keys().next().value as string;
      this.traces.delete(oldest);
    }
  }

  /**
   * A span ended. Kept only in the trace of a listed request (the dashboard's own requests, and
   * work outside any request, leave nothing behind); a Worker's spans join their request's trace.
   */
  span(span: SpanRecord): void {
    const spans = this.traces.get(span.traceId);
    if (spans === undefined || spans.length >= this.bounds.spansPerTrace) return;
    spans.push(span);
    this.emit({ type: "span", span });
  }

  /** The newest requests first, at most `limit`. */
  recent(limit: number): RequestRecord[] {
    return this.requests.slice(-limit).reverse();
  }

  get(id: string): RequestRecord | undefined {
    return this.byId.get(id);
  }

  spansOf(traceId: string | null): SpanRecord[] {
    if (traceId === null) return [];
    return [...(this.traces.get(traceId) ?? [])].sort((a, b) => a.start - b.start);
  }

  listen(listener: (event: RecordEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: RecordEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

/** What the list shows of a request (no logs). */
export function summary(record: RequestRecord): Omit<RequestRecord, "logs"> & { logCount: number } {
  const { logs, ...rest } = record;
  return { ...rest, logCount: logs.length };
}
