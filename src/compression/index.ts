/**
 * Response compression (docs/compression.md). `withCompression` wraps a route's
 * dispatcher; it is only applied when `compression` is on, so an app without it runs
 * exactly the code it ran before.
 */
import type { Dispatcher } from "../serve/dispatch.ts";
import { type Compressor, compressResponse } from "./compress-response.ts";
import { type ConstHandler, constVariants } from "./const-variants.ts";
import { NegotiationCache } from "./negotiate.ts";
import type { ResolvedCompression } from "./options.ts";

export type { CompressionOptions, Encoding } from "./options.ts";
export { resolveCompression } from "./options.ts";

export function createCompressor(settings: ResolvedCompression): Compressor {
  return { settings, negotiation: new NegotiationCache(settings.encodings) };
}

export function withCompression(dispatcher: Dispatcher, compressor: Compressor): Dispatcher {
  return (raw, server, params, context) => {
    const result = dispatcher(raw, server, params, context);
    return result instanceof Promise
      ? result.then((response) => compressResponse(compressor, raw, response))
      : compressResponse(compressor, raw, result);
  };
}

/** A const route's answer in Bun's table: a static response, or a handler choosing a precompressed variant. */
export type ConstAnswer = globalThis.Response | ConstHandler;

/** What the planner applies: the dispatcher wrapper and the const-route variants; both nothing when off. */
export interface CompressionLayer {
  wrap(dispatcher: Dispatcher): Dispatcher;
  statics(statics: Map<string, globalThis.Response>): Promise<Map<string, ConstAnswer>>;
}

/** The layer of an app with compression on; an app without it never loads this folder (src/compression/mount.ts). */
export function compressionLayer(settings: ResolvedCompression): CompressionLayer {
  const compressor = createCompressor(settings);
  return {
    wrap: (dispatcher) => withCompression(dispatcher, compressor),
    async statics(statics) {
      const out = new Map<string, ConstAnswer>();
      for (const [key, response] of statics)
        out.set(key, (await constVariants(response, compressor)) ?? response);
      return out;
    },
  };
}
