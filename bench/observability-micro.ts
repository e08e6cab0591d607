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
import { HELLO } from "./lib/ready.ts";

type RouteFn = (req: Request, server: null) => Response | Promise<Response>;

const ROUNDS = 11;
const N = Number(process.env.MICRO_N ?? "100000");

async function bench(fn: RouteFn): Promise<number> {
  const make = () => new Request("http://127.0.0.1/");
  const requests = Array.from({ length: N }, make);
  const run = async () => {
    const start = Bun.nanoseconds();
    for (let i = 0; i < N; i++) {
      const out = fn(requests[i] as Request, null);
      if (out instanceof Promise) await out;
    }
    return (Bun.nanoseconds() - start) / N;
  };
  await run();
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < N; i++) requests[i] = make();
    times.push(await run());
  }
  const best = Math.min(...times);
  return best;
}

async function route(options: { tracing?: boolean; metrics?: boolean }): Promise<RouteFn> {
  const app = new Webfw(import.meta.path, { router: "bun", openapi: false, ...options });
  app.get("/", () => HELLO);
  const built = await app.build({});
  return (built.bunRoutes["/"] as unknown as Record<string, RouteFn>).GET as RouteFn;
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

const VARIANTS = ["off", "noop", "metrics", "sdk"] as const;
type VariantName = (typeof VARIANTS)[number];
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
  return bench(await route(options));
}

const only = process.argv[2] as VariantName | undefined;
if (only !== undefined) {
  // A child: one variant, its figure as the last line.
  console.log(JSON.stringify({ ns: await runVariant(only) }));
  process.exit(0);
}

// The parent: each variant in its own process pinned to core 0, alternating, three times; the
// fastest of each variant's runs is its figure (noise only adds time), the spread is printed.
const runs = Number(process.env.MICRO_RUNS ?? "3");
const results: Record<VariantName, number[]> = { off: [], noop: [], metrics: [], sdk: [] };
for (let run = 0; run < runs; run++) {
  for (const name of VARIANTS) {
    const child = Bun.spawnSync(["taskset", "-c", "0", process.execPath, import.meta.path, name], {
      env: { ...process.env, MICRO_N: String(N) },
    });
    const last = child.stdout.toString().trim().split("\n").pop() ?? "";
    results[name].push((JSON.parse(last) as { ns: number }).ns);
  }
}
const best = (name: VariantName) => Math.min(...results[name]);
console.log(`\n${"variant".padEnd(46)} best ns   runs (ns)`);
for (const name of VARIANTS) {
  console.log(
    `${LABELS[name].padEnd(46)} ${best(name).toFixed(0).padStart(7)}   ${results[name].map((v) => v.toFixed(0)).join(", ")}`,
  );
}
console.log("\nadded per request (best vs best of observability off):");
for (const name of ["noop", "metrics", "sdk"] as const) {
  console.log(`  ${LABELS[name].padEnd(46)} ${(best(name) - best("off")).toFixed(0).padStart(6)} ns`);
}
