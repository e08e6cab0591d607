/**
 * The layer that gives every request its id and echoes it on the response.
 * It wraps each compiled dispatcher (routes, 404/405/400 answers, static
 * files, WebSocket upgrades, /mcp) once at build time, and only when request
 * ids are on: an app without them runs none of this code.
 */
import { copyResponse } from "../response/plain-text.ts";
import type { Dispatcher } from "../serve/dispatch.ts";
import { assignRequestId, chooseRequestId } from "./id.ts";
import type { ResolvedRequestIdOptions } from "./options.ts";

type WebResponse = globalThis.Response;

export function withRequestId(dispatcher: Dispatcher, options: ResolvedRequestIdOptions): Dispatcher {
  const { header, trustIncoming } = options;
  return (raw, server, params, context) => {
    const id = chooseRequestId(raw, header, trustIncoming);
    assignRequestId(raw, id);
    const result = dispatcher(raw, server, params, context);
    return result instanceof Promise
      ? result.then((response) => echo(response, header, id))
      : echo(result, header, id);
  };
}

/**
 * Sets the id on the finished response. For a header-less text answer (the common bare route) this
 * is the cheapest way Bun has: setting a header on a response made without one costs less than
 * building that response with a Headers object (docs/performance.md, "Headers after the fact").
 */
function echo(response: WebResponse, header: string, id: string): WebResponse {
  // A WebSocket upgrade hands Bun no response (src/websocket/mount.ts): nothing to write the id on.
  if (response.status === 101) return response;
  try {
    response.headers.set(header, id);
    return response;
  } catch {
    // Immutable headers (a response passed through from `fetch`): a copy shares the body stream.
    const copy = copyResponse(response);
    copy.headers.set(header, id);
    return copy;
  }
}
