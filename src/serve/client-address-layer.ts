/**
 * The outermost layer when `trustProxy` is on (docs/client-address.md): it leaves the app's
 * resolver in the request's own context (src/http/request-context.ts) so that every later reader of the client's address, scheme and host
 * (spans, the access log, IP filters, rate limits, the handler) resolves it once, the same way.
 * One slot write a request; without `trustProxy` the build does not add it.
 */
import { attachResolver, type ClientResolver } from "../http/client-address.ts";
import { contextOf } from "../http/request-context.ts";
import type { Dispatcher } from "./dispatch.ts";

export function withClientAddress(dispatcher: Dispatcher, resolver: ClientResolver): Dispatcher {
  return (raw, server, params, context) => {
    const own = contextOf(context);
    attachResolver(own, resolver);
    return dispatcher(raw, server, params, own);
  };
}
