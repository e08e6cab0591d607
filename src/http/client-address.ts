/**
 * The client's address, scheme and host: the one source every reader uses (`request.ipAddr`,
 * `request.url`, rate-limit keys, the access log, spans, IP filters; docs/client-address.md).
 *
 * Without `trustProxy` it is the socket's address (normalised: `::ffff:a.b.c.d` → `a.b.c.d`) and
 * the URL Bun gives, and nothing runs until something reads it. With `trustProxy`, the build puts
 * one layer outermost (src/serve/client-address-layer.ts) that leaves the app's resolver in the
 * request's context; the first reader resolves it (the socket, then the proxy headers from the
 * right, past the trusted hops only) and every later reader gets the same answer. Kept in the
 * request's context (src/http/request-context.ts), like the request id (src/http/request-id.ts):
 * every layer and the handler's `Request` see it, and nothing is written on Bun's request.
 */
import type { Server } from "bun";
import { type AddressList, parseAddressList } from "./cidr.ts";
import {
  forwardedHost,
  forwardedProto,
  type Hop,
  listValues,
  parseForwarded,
  parseXForwardedFor,
} from "./forwarded.ts";
import { formatIp, type IpBytes, normaliseSocketAddress, parseIp } from "./ip-address.ts";
import { ContextSlot, type DispatchContext } from "./request-context.ts";

/** `true`: every hop; a number: that many proxies in front of the app; a list: those addresses/ranges. */
export type TrustProxy = boolean | number | string[];

/** Which proxy headers are read: the ones your proxies write (the other kind is ignored, so it cannot be forged). */
export type ProxyHeaders = "x-forwarded" | "forwarded";

/** What the app believes about the client. */
export interface ClientInfo {
  /** Canonical text (src/http/ip-address.ts); `null` with no socket (`app.request()`). */
  readonly address: string | null;
  /** `http`/`https` from a trusted proxy; `null`: the connection's own. */
  readonly scheme: string | null;
  /** The Host the client asked for, from a trusted proxy; `null`: the request's own. */
  readonly host: string | null;
}

/** The app's resolved `trustProxy` (`null` when off). */
export interface ClientResolver {
  /** Is the node `depth` hops away (0: the socket) a trusted proxy? */
  readonly trusts: (address: IpBytes, depth: number) => boolean;
  readonly headers: ProxyHeaders;
}

/**
 * Checks `trustProxy` and `proxyHeaders` when the app is declared; `null` when off. A bad entry is
 * a `TypeError` at once, before anything is served.
 */
export function resolveTrustProxy(option: unknown, headers: unknown = "x-forwarded"): ClientResolver | null {
  if (headers !== "x-forwarded" && headers !== "forwarded") {
    throw new TypeError(`proxyHeaders must be "x-forwarded" or "forwarded", got ${JSON.stringify(headers)}`);
  }
  if (option === undefined || option === false) return null;
  if (option === true) return { trusts: () => true, headers };
  if (typeof option === "number") {
    if (!Number.isSafeInteger(option) || option < 0) {
      throw new TypeError(`trustProxy: a hop count must be a non-negative integer, got ${option}`);
    }
    if (option === 0) return null;
    return { trusts: (_, depth) => depth < option, headers };
  }
  if (Array.isArray(option)) {
    if (option.length === 0) return null;
    const list: AddressList = parseAddressList(option, "trustProxy");
    return { trusts: (address) => list.contains(address), headers };
  }
  throw new TypeError("trustProxy must be true, a hop count or a list of addresses and CIDR ranges");
}

/**
 * What the request's context holds: the app's resolver until the first reader resolves it into a
 * `ClientInfo`; without `trustProxy`, the socket's canonical address once a reader asked for it
 * (Bun's `server.requestIP` allocates and asks the socket on every call: a limit, a filter and the
 * access log of one request share one call when they share the request's own context).
 */
type Client = ClientResolver | ClientInfo | string | null;
const CLIENT = new ContextSlot<Client>();

/** Leaves the app's resolver in a request's own context (src/serve/client-address-layer.ts); the work waits for a reader. */
export function attachResolver(context: DispatchContext, resolver: ClientResolver): void {
  if (CLIENT.get(context) === undefined) CLIENT.set(context, resolver);
}

/** The client as trusted proxies report it; `null` when `trustProxy` is off for this request. */
export function forwardedClient(
  raw: globalThis.Request,
  server: Server<unknown> | null,
  context: DispatchContext | null | undefined,
): ClientInfo | null {
  const client = CLIENT.get(context);
  if (client === undefined || client === null || typeof client === "string") return null;
  if (!("trusts" in client)) return client;
  const info = resolveClient(raw, server, client);
  // A resolver is only ever in an own context (`attachResolver`).
  CLIENT.set(context as DispatchContext, info);
  return info;
}

/** The client's address in canonical text, whoever asks (src/http/request.ts, rate limits, logs, filters). */
export function clientAddressOf(
  raw: globalThis.Request,
  server: Server<unknown> | null,
  context: DispatchContext | null | undefined,
): string | null {
  const client = CLIENT.get(context);
  if (typeof client === "string" || client === null) return client;
  if (client !== undefined) return (forwardedClient(raw, server, context) as ClientInfo).address;
  const socket = server?.requestIP(raw)?.address;
  const address = socket === undefined ? null : normaliseSocketAddress(socket);
  if (context !== null && context !== undefined && !context.shared) CLIENT.set(context, address);
  return address;
}

const CONNECTION: ClientInfo = Object.freeze({ address: null, scheme: null, host: null });

/**
 * The walk: the socket first; while the node is trusted, the hop its proxy wrote (right to left).
 * The first untrusted node is the client. A hop without an address (`for=unknown`, an obfuscated
 * name) stops the walk at the nearest trusted node; a malformed hop stops it before itself.
 */
export function resolveClient(
  raw: globalThis.Request,
  server: Server<unknown> | null,
  resolver: ClientResolver,
): ClientInfo {
  const socket = server?.requestIP(raw)?.address;
  if (socket === undefined) return CONNECTION;
  const socketBytes = parseIp(socket);
  if (socketBytes === null) return { address: socket, scheme: null, host: null };
  let address = formatIp(socketBytes);
  if (!resolver.trusts(socketBytes, 0)) return { address, scheme: null, host: null };
  const forwarded = resolver.headers === "forwarded";
  const header = raw.headers.get(forwarded ? "forwarded" : "x-forwarded-for");
  const hops: Hop[] = header === null ? [] : forwarded ? parseForwarded(header) : parseXForwardedFor(header);
  // The hop the walk stopped at (its scheme and host are the client's), counted from the right.
  let chosen = -1;
  for (let i = hops.length - 1, depth = 1; i >= 0; i--, depth++) {
    const hop = hops[i] as Hop;
    if (hop.malformed) break;
    chosen = i;
    if (hop.address === null) break;
    address = formatIp(hop.address);
    if (!resolver.trusts(hop.address, depth)) break;
  }
  if (forwarded) {
    const hop = chosen === -1 ? undefined : hops[chosen];
    return { address, scheme: hop?.proto ?? null, host: hop?.host ?? null };
  }
  // X-Forwarded-Proto/-Host: one value (set by the proxies) or one per hop, aligned from the right.
  const fromRight = chosen === -1 ? 0 : hops.length - 1 - chosen;
  return {
    address,
    scheme: forwardedProto(alignedValue(listValues(raw.headers.get("x-forwarded-proto")), fromRight)) ?? null,
    host: forwardedHost(alignedValue(listValues(raw.headers.get("x-forwarded-host")), fromRight)) ?? null,
  };
}

/**
 * The value of a per-hop list for the hop `fromRight` places from the right: a single value is
 * the proxies' own; a list as long as the walk is read at that place; a shorter list cannot be
 * lined up with the hops and is ignored.
 */
function alignedValue(values: string[], fromRight: number): string | undefined {
  if (values.length === 1) return values[0];
  if (values.length > fromRight) return values[values.length - 1 - fromRight];
  return undefined;
}
