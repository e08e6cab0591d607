/**
 * Compression as a mount (src/plan/mount.ts, docs/compression.md): the innermost layer around
 * every dispatcher, and precompressed variants of the const answers Bun serves by itself. With
 * `compression` off, src/compression/index.ts and its codecs are not loaded.
 */
import type { AppState } from "../app-state.ts";
import type { ConstAnswer, Mount } from "../plan/mount.ts";

export function compressionMount(app: AppState): Mount {
  return {
    name: "compression",
    async prepare() {
      const settings = app.config.compression;
      if (settings === null) return null;
      const layer = (await import("./index.ts")).compressionLayer(settings);
      return {
        layer: (dispatcher) => layer.wrap(dispatcher),
        async statics(statics) {
          const responses = new Map<string, globalThis.Response>();
          for (const [key, answer] of statics) if (answer instanceof Response) responses.set(key, answer);
          const out = new Map<string, ConstAnswer>(statics);
          for (const [key, answer] of await layer.statics(responses)) out.set(key, answer);
          return out;
        },
      };
    },
  };
}
