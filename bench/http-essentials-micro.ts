/**
 * In-process cost of ETags and Server-Timing on `GET /` (a JSON answer), without sockets:
 * `bun bench/http-essentials-micro.ts`. Calls the dispatcher Bun's router would call (as
 * bench/observability-micro.ts does) for the same app with the features off (their defaults),
 * `etag: true` (hash + ETag header), and `serverTiming: true`. The first two rows must be equal
 * within noise: off builds no layer (src/plan/build.ts). Each variant in its own process, three
 * runs in alternation, the fastest of 11 rounds each (noise only adds time). Figures are rough on
 * a shared machine.
 */
import { Webfw, type WebfwOptions } from "../src/index.ts";
import { compareVariants, dispatcherOf, nsPerCall } from "./lib/dispatcher-micro.ts";

const N = Number(process.env.MICRO_N ?? "50000");

const VARIANTS = {
  baseline: { label: "no options (before this feature)", options: {} },
  off: { label: "etag: false, serverTiming: false", options: { etag: false, serverTiming: false } },
  etag: { label: "etag: true", options: { etag: true } },
  timing: { label: "serverTiming: true", options: { serverTiming: true } },
} satisfies Record<string, { label: string; options: WebfwOptions }>;
type VariantName = keyof typeof VARIANTS;

async function runVariant(name: VariantName): Promise<number> {
  const app = new Webfw(import.meta.path, { router: "bun", openapi: false, ...VARIANTS[name].options });
  app.get("/", () => ({ hello: "world", items: [1, 2, 3] }));
  return nsPerCall(await dispatcherOf(app, "/"), "http://127.0.0.1/", N, true);
}

await compareVariants(import.meta.path, VARIANTS, N, runVariant);
