/**
 * The secure-headers layer (docs/security.md, "Secure response headers"): around a route's
 * dispatcher it makes this request's CSP nonce (only when the route's policy writes `NONCE`)
 * before anything runs, then writes the headers on whatever answer comes back, errors included.
 * Built only when the app or a route turns the option on (src/secure-headers/plan.ts).
 */
import { setCspNonce } from "../http/csp-nonce.ts";
import { contextOf } from "../http/request-context.ts";
import type { DispatcherWrap } from "../observability/route-info.ts";
import { copyResponse } from "../response/copy-response.ts";
import type { RouteRecord } from "../router/route.ts";
import type { Dispatcher } from "../serve/dispatch.ts";
import { isHostBlind, markHostBlind } from "../serve/host-blind.ts";
import { newNonce } from "./nonce.ts";
import { type ResolvedSecureHeaders, resolveRouteSecureHeaders } from "./options.ts";
import { cspValue, type HeaderPolicy, headerPolicy } from "./policy.ts";

type WebResponse = globalThis.Response;

/**
 * The layer for this app, or `null` when neither the app nor any route turns secure headers on
 * (nothing wrapped, no work per request). Route options are resolved here, so a bad one stops the start.
 */
export function secureHeadersLayer(
  app: ResolvedSecureHeaders | null,
  routes: readonly { route: RouteRecord }[],
): DispatcherWrap | null {
  const appPolicy = app === null ? null : headerPolicy(app);
  const byRoute = new Map<string, HeaderPolicy | null>();
  for (const { route } of routes) {
    const option = route.options.secureHeaders;
    if (option === undefined) continue;
    const where = `${route.method} ${route.path}: secureHeaders`;
    const resolved = resolveRouteSecureHeaders(app, option, where);
    byRoute.set(`${route.method} ${route.path}`, resolved === null ? null : headerPolicy(resolved));
  }
  if (appPolicy === null && [...byRoute.values()].every((policy) => policy === null)) return null;
  return (dispatcher, route) => {
    const key = route?.pattern ? `${route.method} ${route.pattern}` : "";
    const policy = byRoute.has(key) ? (byRoute.get(key) as HeaderPolicy | null) : appPolicy;
    return policy === null ? dispatcher : withSecureHeaders(dispatcher, policy);
  };
}

function withSecureHeaders(dispatcher: Dispatcher, policy: HeaderPolicy): Dispatcher {
  const wrapped: Dispatcher = (raw, server, params, context) => {
    // Made before the route runs, so the handler, its templates and after-middlewares can read it.
    // Kept in the request's own context (src/http/csp-nonce.ts); no nonce, no context made.
    let nonce: string | undefined;
    let inner = context;
    if (policy.usesNonce) {
      nonce = newNonce();
      inner = contextOf(context);
      setCspNonce(inner, nonce);
    }
    const result = dispatcher(raw, server, params, inner);
    return result instanceof Promise
      ? result.then((response) => stamp(response, raw, policy, nonce))
      : stamp(result, raw, policy, nonce);
  };
  // It reads only the URL's scheme (never the Host), so a host-blind route stays host-blind.
  return isHostBlind(dispatcher) ? markHostBlind(wrapped) : wrapped;
}

/** Writes the policy's headers; they replace a handler's own (a route's option is the way to change them). */
function stamp(
  response: WebResponse,
  raw: globalThis.Request,
  policy: HeaderPolicy,
  nonce: string | undefined,
): WebResponse {
  // A WebSocket upgrade hands Bun no response (src/websocket/install.ts).
  if (response.status === 101) return response;
  const tls = raw.url.startsWith("https:");
  let target = response;
  try {
    write(target.headers, policy, tls, nonce);
  } catch {
    // Immutable headers (a response passed through from `fetch`): one copy sharing the body.
    target = copyResponse(response);
    write(target.headers, policy, tls, nonce);
  }
  return target;
}

function write(
  headers: globalThis.Headers,
  policy: HeaderPolicy,
  tls: boolean,
  nonce: string | undefined,
): void {
  for (const [name, value] of tls ? policy.tls : policy.plain) headers.set(name, value);
  if (policy.cspName !== null)
    headers.set(policy.cspName, cspValue(tls ? policy.cspTls : policy.cspPlain, nonce));
}
