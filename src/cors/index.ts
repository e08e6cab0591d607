import type { Headers } from "../http/headers.ts";
import { TEXT_PLAIN } from "../http/media-type.ts";
import type { Request } from "../http/request.ts";
import { isToken } from "../http/token.ts";
import { Response } from "../response/response.ts";
import { appendVary } from "../response/vary.ts";
import { installPair, type MiddlewarePair, type MiddlewareTarget } from "../router/middleware.ts";
import { markCorsPair } from "./marks.ts";
import { type CorsOptions, type CorsPolicy, corsPolicy } from "./policy.ts";

export type { CorsOptions, CorsOrigins, CorsPolicy } from "./policy.ts";

// Browsers never need these listed in Access-Control-Allow-Methods (Fetch: CORS-safelisted methods).
const SAFELISTED_METHODS = new Set(["GET", "HEAD", "POST"]);
// The policy of every router `cors()` configured: cross-site request protection trusts its origins.
const configured = new WeakMap<object, CorsPolicy>();

/**
 * What `app.cors(options)` and `router.cors(options)` do (src/router/router-base.ts), the one way
 * to install CORS (docs/cors.md): checks the options, so a bad one fails at configuration, then
 * registers the before/after pair on `target`. Once per router.
 */
export function installCors(target: MiddlewareTarget, options: CorsOptions = {}): void {
  if (configured.has(target)) throw new Error("CORS is already configured for this router");
  const policy = corsPolicy(options);
  configured.set(target, policy);
  installPair(target, corsPair(policy));
}

/** The CORS policy `cors()` gave `target`, if any (src/cross-origin/plan.ts). */
export function corsPolicyOf(target: object): CorsPolicy | undefined {
  return configured.get(target);
}

/**
 * CORS as a before/after pair. The before half answers preflights; the after half adds
 * `Access-Control-Allow-Origin` to every other response of an allowed origin, error responses
 * included.
 */
function corsPair(policy: CorsPolicy): MiddlewarePair {
  // Marked: a router's rate-limit refusals run its CORS pair (src/cors/marks.ts).
  return markCorsPair({
    before: (request) => {
      if (request.method !== "OPTIONS") return undefined;
      const origin = request.headers.get("origin");
      const method = request.headers.get("access-control-request-method");
      // Without both it is not a preflight but an ordinary OPTIONS request (the route, or 204 with Allow).
      if (origin === null || method === null) return undefined;
      return preflight(request, policy, origin, method);
    },
    after: (response, request) => {
      const headers = response.headers;
      if (policy.star) {
        headers.set("access-control-allow-origin", "*");
        if (policy.exposeValue !== null) headers.set("access-control-expose-headers", policy.exposeValue);
        return;
      }
      appendVary(headers, "Origin");
      const origin = request.headers.get("origin");
      if (origin === null) return;
      const allowed = policy.allows(origin);
      // Only a user's async predicate costs a promise; lists and patterns answer synchronously.
      if (allowed instanceof Promise) return allowed.then((ok) => allowOrigin(headers, origin, ok, policy));
      allowOrigin(headers, origin, allowed, policy);
    },
  });
}

function allowOrigin(headers: Headers, origin: string, allowed: boolean, policy: CorsPolicy): void {
  if (!allowed) return;
  headers.set("access-control-allow-origin", origin);
  if (policy.credentials) headers.set("access-control-allow-credentials", "true");
  if (policy.exposeValue !== null) headers.set("access-control-expose-headers", policy.exposeValue);
}

async function preflight(
  request: Request,
  policy: CorsPolicy,
  origin: string,
  method: string,
): Promise<Response> {
  const headers: Record<string, string> = {};
  const vary: string[] = [];
  if (!policy.star) {
    vary.push("Origin");
    if (!(await policy.allows(origin))) return refuse(403, "CORS: origin not allowed", vary);
  }
  if (!isToken(method)) return refuse(400, "CORS: malformed Access-Control-Request-Method", vary);
  if (policy.methods !== null && !SAFELISTED_METHODS.has(method) && !policy.methods.has(method)) {
    return refuse(403, `CORS: method '${method}' is not allowed`, vary);
  }
  const requested = requestedHeaders(request.headers.get("access-control-request-headers"));
  if (requested === null) return refuse(400, "CORS: malformed Access-Control-Request-Headers", vary);
  if (policy.headers !== null) {
    const denied = requested.find((name) => !(policy.headers as ReadonlySet<string>).has(name));
    if (denied !== undefined) return refuse(403, `CORS: request header '${denied}' is not allowed`, vary);
  }

  headers["access-control-allow-origin"] = policy.star ? "*" : origin;
  if (policy.credentials) headers["access-control-allow-credentials"] = "true";
  if (policy.methods === null) {
    headers["access-control-allow-methods"] = method;
    vary.push("Access-Control-Request-Method");
  } else headers["access-control-allow-methods"] = policy.methodsValue;
  if (policy.headers === null) {
    if (requested.length > 0) headers["access-control-allow-headers"] = requested.join(", ");
    vary.push("Access-Control-Request-Headers");
  } else if (policy.headersValue !== "") headers["access-control-allow-headers"] = policy.headersValue;
  if (policy.maxAgeValue !== null) headers["access-control-max-age"] = policy.maxAgeValue;
  if (vary.length > 0) headers.vary = vary.join(", ");
  return new Response(204, headers);
}

/** The names of `Access-Control-Request-Headers`, lower-cased; `null` when one is not a header name. */
function requestedHeaders(value: string | null): string[] | null {
  if (value === null) return [];
  const names = value
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  return names.every(isToken) ? names : null;
}

/** A refused preflight: no CORS headers, so the browser blocks the request; the text says why. */
function refuse(status: number, message: string, vary: string[]): Response {
  const headers: Record<string, string> = { "content-type": TEXT_PLAIN };
  if (vary.length > 0) headers.vary = vary.join(", ");
  return new Response(status, headers, message);
}
