/**
 * The rate-limit layer of one route: counts the request under its key and
 * either passes it to the route's dispatcher (stamping `RateLimit` and
 * `RateLimit-Policy` on the answer) or refuses it with 429 before anything
 * else runs: no body is read, no middleware or handler runs. It wraps the
 * compiled dispatcher at build time, only on routes that have a limit.
 *
 * A refusal goes through a dispatcher made of the app-global middlewares
 * (like 404/405), so CORS headers, the response header rules, problem
 * details and request ids apply to the 429 too.
 */
import type { Server } from "bun";
import type { AuthenticationHandler } from "../auth/handler.ts";
import { clientAddressOf } from "../http/client-address.ts";
import { addressGroup } from "../http/ip-address.ts";
import { Request } from "../http/request.ts";
import { ContextSlot, contextOf } from "../http/request-context.ts";
import { requestIdOf } from "../http/request-id.ts";
import { withHeader } from "../response/copy-response.ts";
import { HttpError } from "../response/errors.ts";
import type { DispatchContext, Dispatcher, Params } from "../serve/dispatch.ts";
import { isHostBlind, markHostBlind } from "../serve/host-blind.ts";
import { limitHeaderOf, policyHeader, retryAfter } from "./headers.ts";
import type { ResolvedRateLimit } from "./options.ts";
import { type Hit, type RateLimitStore, slidingHitOf } from "./store.ts";
import { warnStoreFailed } from "./store-warning.ts";

type WebResponse = globalThis.Response;

export interface RateLimitContext {
  /** Answers a refused request by throwing `refusalOf(request)` inside the app-global middlewares. */
  refuse: Dispatcher;
  /** The route's authentication, for the `"identity"` key. */
  auth: AuthenticationHandler | null;
  globalDependencies: Record<string, unknown>;
  /** The store of limits that name none (one per app). */
  defaultStore: RateLimitStore;
  /** `GET /path`, for messages. */
  label: string;
  /** Behind trusted proxies (docs/client-address.md): the address is a header read, not host-blind. */
  forwarded?: boolean;
}

/** What a refused request gets, in its context, until the refusal dispatcher throws it. */
const REFUSAL = new ContextSlot<unknown>();

/** The handler of the refusal dispatcher. */
export function throwRefusal(request: Request): never {
  throw REFUSAL.get(request.context) ?? new HttpError(429);
}

export function withRateLimit(
  dispatcher: Dispatcher,
  limit: ResolvedRateLimit,
  context: RateLimitContext,
): Dispatcher {
  const { name, windowMs } = limit;
  const quota = limit.limit;
  const store = limit.store ?? context.defaultStore;
  // `algorithm: "sliding"`: the store decides and counts (src/rate-limit/sliding.ts); null for fixed windows.
  const slide = limit.algorithm === "sliding" ? slidingHitOf(store) : null;
  const policy = policyHeader(name, quota, windowMs);
  const limitHeader = limitHeaderOf(name);
  // The app's one client address (docs/client-address.md), IPv6 counted by its subnet.
  const subnet = limit.ipv6Subnet;
  const addressKey = (address: string | null): string =>
    address === null ? "ip:unknown" : `ip:${addressGroup(address, subnet)}`;

  const refuse = (
    raw: globalThis.Request,
    server: Server<unknown> | null,
    params: Params,
    error: unknown,
    dispatchContext: DispatchContext | undefined,
  ) => {
    const own = contextOf(dispatchContext);
    REFUSAL.set(own, error);
    return context.refuse(raw, server, params, own);
  };

  const decide = (
    raw: globalThis.Request,
    server: Server<unknown> | null,
    params: Params,
    hit: Hit,
    context: DispatchContext | undefined,
  ) => {
    if (hit.count > quota) {
      const seconds = retryAfter(hit.resetMs);
      const error = new HttpError(
        429,
        { detail: `More than ${quota} requests in ${Math.ceil(windowMs / 1000)} s; retry in ${seconds} s.` },
        { "retry-after": seconds, "ratelimit-policy": policy, ratelimit: limitHeader(0, hit.resetMs) },
      );
      return refuse(raw, server, params, error, context);
    }
    const state = limitHeader(quota - hit.count, hit.resetMs);
    const result = dispatcher(raw, server, params, context);
    return result instanceof Promise
      ? result.then((r) => stamp(r, policy, state))
      : stamp(result, policy, state);
  };

  const storeFailed = (
    raw: globalThis.Request,
    server: Server<unknown> | null,
    params: Params,
    error: unknown,
    context: DispatchContext | undefined,
  ) => {
    // Throttled per store, not per route (src/rate-limit/store-warning.ts).
    warnStoreFailed(store, {
      policy: name,
      on_store_error: limit.onStoreError,
      request_id: requestIdOf(raw, context),
      error,
    });
    if (limit.onStoreError === "allow") return dispatcher(raw, server, params, context);
    const refusal = new HttpError(503, "Service Unavailable: the rate limit cannot be checked", {
      "retry-after": "1",
    });
    return refuse(raw, server, params, refusal, context);
  };

  const count = (
    raw: globalThis.Request,
    server: Server<unknown> | null,
    params: Params,
    key: string | null | undefined,
    context?: DispatchContext,
  ): WebResponse | Promise<WebResponse> => {
    // No key: this request is not limited (a key function's allow-list).
    if (key === null || key === undefined) return dispatcher(raw, server, params, context);
    let hit: Hit | Promise<Hit>;
    try {
      hit = slide === null ? store.hit(`${name}:${key}`, windowMs) : slide(`${name}:${key}`, windowMs, quota);
    } catch (error) {
      return storeFailed(raw, server, params, error, context);
    }
    if (hit instanceof Promise) {
      return hit.then(
        (resolved) => decide(raw, server, params, resolved, context),
        (error) => storeFailed(raw, server, params, error, context),
      );
    }
    return decide(raw, server, params, hit, context);
  };

  const key = limit.key;
  if (key === "ip") {
    const byAddress: Dispatcher = (raw, server, params, context) =>
      count(raw, server, params, addressKey(clientAddressOf(raw, server, context)), context);
    // Keyed by the socket's address alone, the limit reads nothing of the request: a host-blind
    // route stays host-blind under it (src/serve/host-blind.ts). Behind a trusted proxy the address
    // is a header read: no mark then.
    return isHostBlind(dispatcher) && context.forwarded !== true ? markHostBlind(byAddress) : byAddress;
  }

  // Identity and key functions read a Request; made here for the key only (the route makes its own).
  const requestFor = (raw: globalThis.Request, server: Server<unknown> | null, params: Params): Request => {
    return new Request(raw, params, server, context.globalDependencies, {});
  };
  const keyOf =
    key === "identity"
      ? identityKey(context.auth, context.label, addressKey)
      : async (request: Request) => {
          const made = await key(request);
          if (made !== null && made !== undefined && typeof made !== "string") {
            throw new TypeError(
              `the rateLimit key function of ${context.label} returned a ${typeof made}, not a string`,
            );
          }
          return made;
        };
  return async (raw, server, params, dispatchContext) => {
    // The key function's request and the route's share one context (its client address, its id).
    const context = contextOf(dispatchContext);
    const request = requestFor(raw, server, params);
    request.context = context;
    let made: string | null | undefined;
    try {
      made = await keyOf(request);
    } catch (error) {
      // An HttpError from the key function is its answer; anything else is a 500 logged with the request id.
      return refuse(raw, server, params, error, context);
    }
    return count(raw, server, params, made, context);
  };
}

/**
 * `"identity"`: the authenticated identity's `sub` (else `user`, `id`, else all its claims), counted
 * apart from addresses; a request without a valid credential is counted by its address.
 */
function identityKey(
  auth: AuthenticationHandler | null,
  label: string,
  addressKey: (address: string | null) => string,
): (request: Request) => Promise<string> {
  if (auth === null)
    throw new Error(`rateLimit of ${label} keys by identity but no authentication is configured`);
  return async (request) => {
    if (auth.tokenGetter.getToken(request) !== null) {
      let identity = null;
      try {
        identity = await auth.authenticate(request);
      } catch {
        // A credential the application cannot parse: not an identity, counted by address.
      }
      if (identity) {
        const claims = identity.claims as Record<string, unknown>;
        const id = claims.sub ?? claims.user ?? claims.id;
        return `id:${typeof id === "string" || typeof id === "number" ? id : JSON.stringify(claims)}`;
      }
    }
    return addressKey(request.ipAddr);
  };
}

function stamp(response: WebResponse, policy: string, state: string): WebResponse {
  return withHeader(withHeader(response, "ratelimit-policy", policy), "ratelimit", state);
}
