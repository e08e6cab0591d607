/**
 * Headers that a layer outside a route (request ids, a rate limit) knows before the route runs
 * and would otherwise set on the finished Web Response. Setting a header on a Response Bun has
 * already built costs about as much as the rest of a bare route (issue #18), so such a layer
 * offers its headers first, in the `DispatchContext` it hands the route (src/serve/dispatch.ts);
 * the bare route's text conversion builds its response with them. The layer then skips its own
 * `headers.set` only when the response it gets back is the very one built with them, so every
 * other path (errors, const routes, middlewares that change headers) still gets them set
 * afterwards, exactly as before. The offer travels with the call, not in a WeakMap keyed by
 * Bun's request: two WeakMap operations cost ~200 ns, an object a few.
 */

import { plainTextResponse } from "./plain-text.ts";

type WebResponse = globalThis.Response;

export interface Offer {
  /** Header names and values, in offering order (the outer layer first, so it is set last and wins). */
  readonly pairs: string[];
  /** The response built with `pairs`, once a route took them. */
  into: WebResponse | null;
}

/** A new offer of one header. */
export function newOffer(name: string, value: string): Offer {
  return { pairs: [name, value], into: null };
}

/** Adds a header to an offer the route has not taken yet. */
export function offerHeader(offer: Offer, name: string, value: string): void {
  if (offer.into === null) offer.pairs.push(name, value);
}

/** True when `response` was built with the headers of `offer` (so they are on it already). */
export function tookOffer(offer: Offer, response: WebResponse): boolean {
  return offer.into === response;
}

/**
 * A text response carrying the offered headers, or `null` when there is no offer to take (the
 * caller then builds the plain response). Later offers than this one are set afterwards.
 */
export function textWithOffer(offer: Offer | undefined, text: string): WebResponse | null {
  if (offer === undefined || offer.into !== null) return null;
  const headers = new globalThis.Headers();
  const pairs = offer.pairs;
  for (let i = pairs.length - 2; i >= 0; i -= 2) headers.set(pairs[i] as string, pairs[i + 1] as string);
  // No Content-Type: Bun adds text/plain;charset=utf-8 for a string body (src/response/plain-text.ts).
  const response = plainTextResponse(text, { headers });
  offer.into = response;
  return response;
}
