/**
 * In-process cost of the observability layers on `GET /` (issue #19), without sockets:
 * `bun bench/observability-micro.ts`. Calls the dispatcher Bun's router would call, as
 * bench/micro.ts does, for the same app with observability off, tracing through the API with no
 * SDK (the no-op), metrics on, and tracing with the SDK recording every request (a batch span
 * processor whose exporter drops the batches, so the figure is the SDK's own work per request,
 * not the network). Each variant runs in its own process pinned to core 0, three times in
 * alternation; a figure is the fastest of 11 rounds of a run (noise only adds time).
 * The socket and HTTP parsing (~7 µs a request here) come on top and are the same for all.
 */
import { trace } from "@opentelemetry/api";
import { ExportResultCode } from "@opentelemetry/core";
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { Webfw } from "../src/index.ts";
import { compareVariants, dispatcherOf, nsPerCall, type RouteFn } from "./lib/dispatcher-micro.ts";
import { HELLO } from "./lib/ready.ts";

const N = Number(process.env.MICRO_N ?? "100000");

async function route(options: { tracing?: boolean; metrics?: boolean }): Promise<RouteFn> {
  const app = new Webfw(import.meta.path, { router: "bun", openapi: false, ...options });
  app.get("/", () => HELLO);
  return dispatcherOf(app, "/");
}

/** Accepts every batch and drops it: what the SDK costs before the network. */
class DroppingExporter implements SpanExporter {
  spans = 0;
  export(spans: ReadableSpan[], done: (result: { code: ExportResultCode }) => void): void {
    this.spans += spans.length;
    done({ code: ExportResultCode.SUCCESS });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

type VariantName = "off" | "noop" | "metrics" | "sdk";
const LABELS: Record<VariantName, string> = {
  off: "observability off",
  noop: "tracing: true, no SDK (no-op API)",
  metrics: "metrics: true",
  sdk: "tracing with the SDK (every request sampled)",
};

/** One variant in this process (a fresh process each: no JIT state shared between variants). */
async function runVariant(name: VariantName): Promise<number> {
  if (name === "sdk") {
    trace.setGlobalTracerProvider(
      new TracerProvider({
        spanProcessors: [new BatchSpanProcessor({ exporter: new DroppingExporter(), maxQueueSize: 100_000 })],
      }),
    );
  }
  const options = { noop: { tracing: true }, sdk: { tracing: true }, metrics: { metrics: true }, off: {} }[
    name
  ];
  return nsPerCall(await route(options), "http://127.0.0.1/", N);
}

const best = await compareVariants(import.meta.path, LABELS, N, runVariant);
console.log("\nadded per request (best vs best of observability off):");
const off = best.get("off") ?? 0;
for (const name of ["noop", "metrics", "sdk"] as const) {
  console.log(`  ${LABELS[name].padEnd(46)} ${((best.get(name) ?? 0) - off).toFixed(0).padStart(6)} ns`);
}
