/**
 * The IP-filter layer of one route (docs/client-address.md#ip-filters): the client's address
 * (src/http/client-address.ts, the same every reader sees) against every filter that applies;
 * a refused request goes to the 403 dispatcher before anything else runs: no body is read, no
 * middleware of the route, no rate-limit count, no handler. Built only around routes with a filter.
 */
import { clientAddressOf } from "../http/client-address.ts";
import { parseIp } from "../http/ip-address.ts";
import { HttpError } from "../response/errors.ts";
import type { Dispatcher } from "../serve/dispatch.ts";
import { isHostBlind, markHostBlind } from "../serve/host-blind.ts";
import type { IpFilter } from "./options.ts";

/** The handler of the refusal dispatcher (it runs the app-global middlewares, like a 404). */
export function throwForbidden(): never {
  throw new HttpError(403, { title: "Forbidden", detail: "This address may not use this resource." });
}

/**
 * `forwarded`: the address may come from proxy headers (`trustProxy`), a read of the request,
 * so a host-blind route does not stay host-blind under the filter (src/serve/host-blind.ts).
 */
export function withIpFilter(
  dispatcher: Dispatcher,
  filters: readonly IpFilter[],
  refuse: Dispatcher,
  forwarded: boolean,
): Dispatcher {
  const filtered: Dispatcher = (raw, server, params, context) => {
    const address = clientAddressOf(raw, server, context);
    const bytes = address === null ? null : parseIp(address);
    for (const filter of filters) if (!filter.admits(bytes)) return refuse(raw, server, params, context);
    return dispatcher(raw, server, params, context);
  };
  return !forwarded && isHostBlind(dispatcher) ? markHostBlind(filtered) : filtered;
}
