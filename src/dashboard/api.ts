/**
 * The dashboard's JSON API and live stream (docs/dashboard.md lists each endpoint). The page
 * (src/dashboard/page.ts) is built on it; tests and tools may read it too.
 */
import type { Server } from "bun";
import type { Request } from "../http/request.ts";
import { HttpError } from "../response/errors.ts";
import type { RouteView } from "./describe-routes.ts";
import { type RecordEvent, type Records, summary } from "./records.ts";
import type { RouteStats } from "./route-stats.ts";
import type { SpanRecording } from "./spans.ts";

export interface SocketSource {
  /** Open WebSocket connections of this process (their route and topic). */
  connections(): { id: string; path: string; topic: string; subscriptions: string[] }[];
  /** Topics with subscribers in this process: app.subscribe listeners. */
  hubTopics(): string[];
  hubSubscribers(topic: string): number;
}

export interface DashboardApi {
  records: Records;
  stats: RouteStats;
  routes: () => RouteView[];
  spans: () => SpanRecording;
  sockets: SocketSource;
  server: () => Server<unknown> | null;
  /** `/mcp` when the app serves MCP. */
  mcpPath: () => string | null;
  base: string;
  /** Handler Workers send their spans (`--workers N`). */
  workerSpans: boolean;
}

const MAX_LIST = 500;
/** Events waiting for a slow reader before its stream is closed (bounded memory). */
const MAX_QUEUED_EVENTS = 1000;
/** A comment line now and then keeps proxies from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;

export function infoOf(api: DashboardApi): Record<string, unknown> {
  const spans = api.spans();
  return {
    pid: process.pid,
    base: api.base,
    mcpPath: api.mcpPath(),
    spans: spans.on ? "on" : spans.reason,
    bounds: api.records.bounds,
    workerSpans: api.workerSpans,
  };
}

export function listRequests(api: DashboardApi, request: Request): unknown {
  const raw = request.queryParams.get("limit");
  const limit = raw === null ? 100 : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST) {
    throw new HttpError(400, `limit must be an integer from 1 to ${MAX_LIST}`);
  }
  return api.records.recent(limit).map(summary);
}

export function requestDetail(api: DashboardApi, id: string): unknown {
  const record = api.records.get(id);
  if (record === undefined) throw new HttpError(404, `no recent request with id ${JSON.stringify(id)}`);
  return { ...record, spans: api.records.spansOf(record.traceId) };
}

export function statsOf(api: DashboardApi, request: Request): unknown {
  const raw = request.queryParams.get("seconds");
  const seconds = raw === null ? 120 : Number(raw);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 300) {
    throw new HttpError(400, "seconds must be an integer from 1 to 300");
  }
  return api.stats.series(seconds);
}

export function socketsOf(api: DashboardApi): unknown {
  const server = api.server();
  const connections = api.sockets.connections();
  const topics = new Map<string, { sockets: number; subscribers: number }>();
  for (const connection of connections) {
    for (const topic of [connection.topic, ...connection.subscriptions]) {
      const entry = topics.get(topic) ?? { sockets: 0, subscribers: 0 };
      entry.sockets++;
      topics.set(topic, entry);
    }
  }
  for (const topic of api.sockets.hubTopics())
    topics.set(topic, topics.get(topic) ?? { sockets: 0, subscribers: 0 });
  return {
    connections,
    topics: [...topics].map(([topic, entry]) => ({
      topic,
      // Bun's count (WebSocket clients of this server) plus the app's in-process listeners.
      subscribers: (server?.subscriberCount(topic) ?? entry.sockets) + api.sockets.hubSubscribers(topic),
      sockets: entry.sockets,
    })),
  };
}

/** Open live streams, closed when the server stops (an open stream would hold the drain). */
export class LiveStreams {
  private readonly closers = new Set<() => void>();

  open(records: Records): globalThis.Response {
    const encoder = new TextEncoder();
    let close = () => {};
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        const send = (text: string) => {
          // A page that stopped reading is dropped rather than queued for without bound; it reconnects.
          if ((controller.desiredSize ?? 0) < -MAX_QUEUED_EVENTS) {
            close();
            return;
          }
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            close();
          }
        };
        const unlisten = records.listen((event: RecordEvent) =>
          send(
            `event: ${event.type}\ndata: ${JSON.stringify(event.type === "request" ? summary(event.request) : event.span)}\n\n`,
          ),
        );
        const timer = setInterval(() => send(": keep-alive\n\n"), KEEP_ALIVE_MS);
        close = () => {
          unlisten();
          clearInterval(timer);
          this.closers.delete(close);
          try {
            controller.close();
          } catch {
            // Already closed by the client.
          }
        };
        this.closers.add(close);
        send(": connected\n\n");
      },
      cancel: () => close(),
    });
    return new globalThis.Response(body, {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-store",
        "x-accel-buffering": "no",
      },
    });
  }

  closeAll(): void {
    for (const close of [...this.closers]) close();
  }
}
