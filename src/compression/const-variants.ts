/**
 * Const routes Bun serves without JavaScript: with compression on, each gets one
 * variant per coding, compressed once at start with the best level, and a small
 * handler that picks the variant from `Accept-Encoding` (the only JavaScript such a
 * route then runs). Routes that cannot be compressed stay static responses.
 */

import { withVisibleContentType } from "../response/plain-text.ts";
import { appendVary } from "../response/vary.ts";
import { compressSync } from "./codecs.ts";
import type { Compressor } from "./compress-response.ts";
import { skipReason } from "./eligible.ts";
import type { Encoding } from "./negotiate.ts";
import { BEST_LEVEL } from "./options.ts";

type WebResponse = globalThis.Response;
export type ConstHandler = (request: globalThis.Request) => WebResponse;

interface Variant {
  body: Uint8Array<ArrayBuffer>;
  init: ResponseInit;
}

/** A handler choosing among precompressed variants, or null when the response stays as it is. */
export async function constVariants(
  response: WebResponse,
  compressor: Compressor,
): Promise<ConstHandler | null> {
  response = withVisibleContentType(response);
  const probe = new globalThis.Request("http://localhost/", { headers: { "accept-encoding": "gzip" } });
  if (skipReason(probe, response) !== null) return null;
  const body = new Uint8Array(await response.clone().arrayBuffer());
  const { settings } = compressor;
  // Even a client refusing identity gets identity for a body this small: there is nothing to gain.
  if (body.byteLength < settings.threshold) return null;
  const identityHeaders = new globalThis.Headers(response.headers);
  appendVary(identityHeaders, "Accept-Encoding");
  const base: ResponseInit = { status: response.status, statusText: response.statusText };
  const identity: Variant = { body, init: { ...base, headers: identityHeaders } };
  const variants = new Map<Encoding, Variant>();
  for (const encoding of settings.encodings) {
    // The best level is not always the smallest (brotli 11 loses to 4 on some JSON): keep the smaller.
    const best = compressSync(encoding, body, BEST_LEVEL[encoding]);
    const usual = compressSync(encoding, body, settings.level[encoding]);
    const compressed = usual.byteLength < best.byteLength ? usual : best;
    // A coding that does not make the body smaller is not offered.
    if (compressed.byteLength >= body.byteLength) continue;
    const headers = new globalThis.Headers(identityHeaders);
    headers.set("content-encoding", encoding);
    const etag = headers.get("etag");
    if (etag !== null && !etag.startsWith("W/")) headers.set("etag", `W/${etag}`);
    variants.set(encoding, { body: compressed, init: { ...base, headers } });
  }
  return (request) => {
    const negotiated = compressor.negotiation.get(request.headers.get("accept-encoding"));
    let chosen = identity;
    for (const encoding of negotiated.ranked) {
      const variant = variants.get(encoding);
      if (variant) {
        chosen = variant;
        break;
      }
    }
    // HEAD: Bun leaves the body out and keeps the headers.
    return new globalThis.Response(chosen.body, chosen.init);
  };
}
