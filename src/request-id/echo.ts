/**
 * The layer that gives every request its id and echoes it on the response.
 * It wraps each compiled dispatcher (routes, 404/405/400 answers, static
 * files, WebSocket upgrades, /mcp) once at build time, and only when request
 * ids are on: an app without them runs none of this code.
 */
import { type Offer, tookOffer } from "../response/offered-headers.ts";
import { copyResponse } from "../response/plain-text.ts";
import { type Dispatcher, withOffer } from "../serve/dispatch.ts";
import { assignRequestId, chooseRequestId } from "./id.ts";
import type { ResolvedRequestIdOptions } from "./options.ts";

type WebResponse = globalThis.Response;

export function withRequestId(dispatcher: Dispatcher, options: ResolvedRequestIdOptions): Dispatcher {
  const { header, trustIncoming } = options;
  return (raw, server, params, context) => {
    const id = chooseRequestId(raw, header, trustIncoming);
    assignRequestId(raw, id);
    const offered = withOffer(context, header, id);
    const offer = offered.offer as Offer;
    const result = dispatcher(raw, server, params, offered);
    return result instanceof Promise
      ? result.then((response) => echo(offer, response, header, id))
      : echo(offer, result, header, id);
  };
}

function echo(offer: Offer, response: WebResponse, header: string, id: string): WebResponse {
  // Built with the id already (a bare route's text answer): setting it again would cost as much.
  if (tookOffer(offer, response)) return response;
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
