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

type RouteFn = (req: Request, server: null) => Response | Promise<Response>;

const ROUNDS = 11;
const N = Number(process.env.MICRO_N ?? "50000");

async function bench(fn: RouteFn): Promise<number> {
  const make = () => new Request("http://127.0.0.1/");
  const requests = Array.from({ length: N }, make);
  const run = async () => {
    const start = Bun.nanoseconds();
    for (let i = 0; i < N; i++) {
      let out = fn(requests[i] as Request, null);
      if (out instanceof Promise) out = await out;
      await out.arrayBuffer();
    }
    return (Bun.nanoseconds() - start) / N;
  };
  await run();
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < N; i++) requests[i] = make();
    times.push(await run());
  }
  return Math.min(...times);
}

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
  const built = await app.build({});
  return bench((built.bunRoutes["/"] as unknown as Record<string, RouteFn>).GET as RouteFn);
}

const only = process.argv[2] as VariantName | undefined;
if (only !== undefined) {
  console.log(JSON.stringify({ ns: await runVariant(only) }));
  process.exit(0);
}

const names = Object.keys(VARIANTS) as VariantName[];
const runs = Number(process.env.MICRO_RUNS ?? "3");
const results = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
  VariantName,
  number[]
>;
for (let run = 0; run < runs; run++) {
  for (const name of names) {
    const child = Bun.spawnSync([process.execPath, import.meta.path, name], {
      env: { ...process.env, MICRO_N: String(N) },
    });
    const last = child.stdout.toString().trim().split("\n").pop() ?? "";
    results[name].push((JSON.parse(last) as { ns: number }).ns);
  }
}
console.log(`\n${"variant".padEnd(40)} best ns   runs (ns)`);
for (const name of names) {
  const best = Math.min(...results[name]);
  console.log(
    `${VARIANTS[name].label.padEnd(40)} ${best.toFixed(0).padStart(7)}   ${results[name].map((v) => v.toFixed(0)).join(", ")}`,
  );
}
