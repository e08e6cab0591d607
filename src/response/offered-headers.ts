/**
 * Headers that a layer outside a route (request ids, a rate limit) knows before the route runs
 * and would otherwise set on the finished Web Response. Setting a header on a Response Bun has
 * already built costs about as much as the rest of a bare route (issue #18), so such a layer
 * offers its headers here first; the bare route's text conversion (src/serve/dispatch.ts) builds
 * its response with them. The layer then skips its own `headers.set` only when the response it
 * gets back is the very one built with them, so every other path (errors, const routes,
 * middlewares that change headers) still gets them set afterwards, exactly as before.
 */

type WebResponse = globalThis.Response;

interface Offer {
  /** Header names and values, in offering order (the outer layer first, so it is set last and wins). */
  pairs: string[];
  /** The response built with `pairs`, once a route took them. */
  into: WebResponse | null;
}

const offers = new WeakMap<globalThis.Request, Offer>();

/** Offers a header for the response to `raw` (call before dispatching it). */
export function offerHeader(raw: globalThis.Request, name: string, value: string): void {
  const offer = offers.get(raw);
  if (offer === undefined) offers.set(raw, { pairs: [name, value], into: null });
  else if (offer.into === null) offer.pairs.push(name, value);
}

/** True when `response` was built with the headers offered for `raw` (so they are on it already). */
export function tookOffer(raw: globalThis.Request, response: WebResponse): boolean {
  return offers.get(raw)?.into === response;
}

/**
 * A text response carrying the offered headers of `raw`, or `null` when nothing was offered
 * (the caller then builds the plain response). Later offers than this one are set afterwards.
 */
export function textWithOffer(raw: globalThis.Request, text: string, base: Headers): WebResponse | null {
  const offer = offers.get(raw);
  if (offer === undefined || offer.into !== null) return null;
  const headers = new globalThis.Headers(base);
  const pairs = offer.pairs;
  for (let i = pairs.length - 2; i >= 0; i -= 2) headers.set(pairs[i] as string, pairs[i + 1] as string);
  const response = new globalThis.Response(text, { headers });
  offer.into = response;
  return response;
}
