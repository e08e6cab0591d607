/**
 * The outermost layer when `trustProxy` is on (docs/client-address.md): it leaves the app's
 * resolver on the request so that every later reader of the client's address, scheme and host
 * (spans, the access log, IP filters, rate limits, the handler) resolves it once, the same way.
 * One property write a request; without `trustProxy` the build does not add it.
 */
import { attachResolver, type ClientResolver } from "../http/client-address.ts";
import type { Dispatcher } from "./dispatch.ts";

export function withClientAddress(dispatcher: Dispatcher, resolver: ClientResolver): Dispatcher {
  return (raw, server, params, context) => {
    attachResolver(raw, resolver);
    return dispatcher(raw, server, params, context);
  };
}
