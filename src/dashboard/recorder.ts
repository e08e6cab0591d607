/**
 * The dashboard's layer around every route (docs/dashboard.md): each request becomes a record
 * (method, path, status, duration, request id), runs in an async context that the log tap and the
 * span recorder read (so its log lines and its trace attach to it), and counts in the route's
 * charts. Installed only when the dashboard is on: off, no route is wrapped.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { contextOf, type DispatchContext } from "../http/request-context.ts";
import { requestIdOf } from "../http/request-id.ts";
import type { Dispatcher } from "../serve/dispatch.ts";
import type { Records, RequestRecord } from "./records.ts";
import type { RouteStats } from "./route-stats.ts";

type WebResponse = globalThis.Response;

export class RequestRecorder {
  /** The request whose work is running (read by the log tap and the span recorder). */
  readonly current = new AsyncLocalStorage<RequestRecord>();

  constructor(
    private readonly records: Records,
    private readonly stats: RouteStats,
  ) {}

  wrap(dispatcher: Dispatcher, method: string, pattern: string): Dispatcher {
    const route = `${method} ${pattern}`;
    return (raw, server, params, dispatchContext) => {
      // The request's own context: the id this record keeps is the one the handler and the logs see.
      const context = contextOf(dispatchContext);
      const url = raw.url;
      const pathStart = url.indexOf("/", url.indexOf("//") + 2);
      const record = this.records.begin(raw.method, pathStart < 0 ? "/" : url.slice(pathStart), pattern);
      const started = performance.now();
      let result: WebResponse | Promise<WebResponse>;
      try {
        result = this.current.run(record, dispatcher, raw, server, params, context);
      } catch (error) {
        this.finish(record, route, 500, raw, context, started);
        throw error;
      }
      if (result instanceof Promise) {
        return result.then(
          (response) => {
            this.finish(record, route, response?.status ?? 101, raw, context, started);
            return response;
          },
          (error: unknown) => {
            this.finish(record, route, 500, raw, context, started);
            throw error;
          },
        );
      }
      this.finish(record, route, result?.status ?? 101, raw, context, started);
      return result;
    };
  }

  /** A span started in a request's async context: that request's trace. */
  traceStarted(traceId: string): void {
    const record = this.current.getStore();
    if (record !== undefined) this.records.link(record, traceId);
  }

  /**
   * No response from a dispatcher is a WebSocket upgrade (Bun answers 101 itself). The id is the
   * one the request-id layer gave (src/http/request-id.ts), the one the handler and the logs saw.
   */
  private finish(
    record: RequestRecord,
    route: string,
    status: number,
    raw: globalThis.Request,
    context: DispatchContext,
    started: number,
  ): void {
    const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    this.records.end(record, status, requestIdOf(raw, context), durationMs);
    this.stats.add(route, status, durationMs);
  }
}
