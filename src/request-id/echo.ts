/**
 * The layer that gives every request its id and echoes it on the response.
 * It wraps each compiled dispatcher (routes, 404/405/400 answers, static
 * files, WebSocket upgrades, /mcp) once at build time, and only when request
 * ids are on: an app without them runs none of this code. The id goes in the request's own
 * context (src/http/request-id.ts), which the layers inside and the handler's `request.id` read.
 */

import { contextOf } from "../http/request-context.ts";
import { assignRequestId, chooseRequestId } from "../http/request-id.ts";
import { withHeader } from "../response/copy-response.ts";
import type { Dispatcher } from "../serve/dispatch.ts";
import type { ResolvedRequestIdOptions } from "./options.ts";

export function withRequestId(dispatcher: Dispatcher, options: ResolvedRequestIdOptions): Dispatcher {
  const { header, trustIncoming } = options;
  return (raw, server, params, context) => {
    const id = chooseRequestId(raw, header, trustIncoming);
    const own = contextOf(context);
    assignRequestId(own, id);
    const result = dispatcher(raw, server, params, own);
    return result instanceof Promise
      ? result.then((response) => withHeader(response, header, id))
      : withHeader(result, header, id);
  };
}
