/**
 * Precompressed siblings for `serveDirectory`: `app.js.zst`, `app.js.br`, `app.js.gz` next
 * to `app.js`, made by a build step at the best level. The client's preferred coding
 * that has a sibling is sent as is (with the original's type, its own ETag and Range
 * support); without one, the original is served (and compressed per request when the
 * app's compression is on).
 */
import { ENCODINGS, type Encoding, NegotiationCache } from "./negotiate.ts";

export const SIBLING_EXTENSION: Record<Encoding, string> = { zstd: ".zst", br: ".br", gzip: ".gz" };

export interface SiblingLookup {
  /** Codings to try for this request, best first, with the sibling's path. */
  candidates(request: globalThis.Request, path: string): { encoding: Encoding; path: string }[];
}

export function siblingLookup(encodings: readonly Encoding[] = ENCODINGS): SiblingLookup {
  const negotiation = new NegotiationCache(encodings);
  return {
    candidates(request, path) {
      const { ranked } = negotiation.get(request.headers.get("accept-encoding"));
      return ranked.map((encoding) => ({ encoding, path: `${path}${SIBLING_EXTENSION[encoding]}` }));
    },
  };
}
