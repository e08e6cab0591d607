/**
 * Where a request's Content-Security-Policy nonce lives (`request.cspNonce`, docs/security.md,
 * "Secure response headers"): in the request's context (src/http/request-context.ts). The
 * secure-headers layer (src/secure-headers/) makes it before the route runs, only when the route's
 * policy writes `NONCE`, and reads it back when it writes the header; a Worker's request gets the
 * main thread's (src/workers/run-call.ts). Here, not in the feature's folder, so that the handler's
 * `Request` reads it without importing the feature (docs/architecture.md, "What a Request knows").
 */
import { ContextSlot, type DispatchContext } from "./request-context.ts";

const CSP_NONCE = new ContextSlot<string>();

/** The nonce of the request, or `undefined` when the route's policy has none (or secure headers are off). */
export function cspNonceOf(context: DispatchContext | null | undefined): string | undefined {
  return CSP_NONCE.get(context);
}

/** Gives the request (its own context, `contextOf`) its nonce. */
export function setCspNonce(context: DispatchContext, nonce: string): void {
  CSP_NONCE.set(context, nonce);
}
