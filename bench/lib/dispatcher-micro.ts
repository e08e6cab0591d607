/**
 * The in-process micro-bench shared by bench/observability-micro.ts, bench/http-essentials-micro.ts
 * and bench/response-contracts.ts: a route's dispatcher (the function Bun's router would call) run
 * without sockets, and variants compared each in its own process, alternated
 * (docs/performance.md, "In-process micro-benchmarks").
 */
import type { Webfw } from "../../src/index.ts";

export type RouteFn = (req: Request, server: null) => Response | Promise<Response>;

const ROUNDS = 11;

/** The dispatcher Bun's native router would call for `path` and `method` of a built app. */
export async function dispatcherOf(app: Webfw, path: string, method = "GET"): Promise<RouteFn> {
  const built = await app.build({});
  return (built.bunRoutes[path] as unknown as Record<string, RouteFn>)[method] as RouteFn;
}

/**
 * Nanoseconds per call of `fn` over `n` fresh requests to `url`: the fastest of 11 rounds after a
 * warm-up (noise only adds time). `readBody` also reads each response's body, for variants whose
 * cost is in writing it.
 */
export async function nsPerCall(fn: RouteFn, url: string, n: number, readBody = false): Promise<number> {
  const make = () => new Request(url);
  const requests = Array.from({ length: n }, make);
  const run = async () => {
    const start = Bun.nanoseconds();
    for (let i = 0; i < n; i++) {
      let out = fn(requests[i] as Request, null);
      if (out instanceof Promise) out = await out;
      if (readBody) await out.arrayBuffer();
    }
    return (Bun.nanoseconds() - start) / n;
  };
  await run();
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < n; i++) requests[i] = make();
    times.push(await run());
  }
  return Math.min(...times);
}

/**
 * The driver: with a variant's name as argv[2] (the child), prints `{"ns": …}` of `runVariant`;
 * without (the parent), runs every variant in its own process (pinned to core 0 where `taskset`
 * exists) `MICRO_RUNS` times (default 3), alternating, prints each one's best and every run, and
 * returns each variant's best.
 */
export async function compareVariants<Name extends string>(
  script: string,
  variants: Record<Name, string | { label: string }>,
  n: number,
  runVariant: (name: Name) => Promise<number>,
): Promise<Map<Name, number>> {
  const only = process.argv[2] as Name | undefined;
  if (only !== undefined) {
    console.log(JSON.stringify({ ns: await runVariant(only) }));
    process.exit(0);
  }
  const names = Object.keys(variants) as Name[];
  const label = (name: Name) => {
    const variant = variants[name];
    return typeof variant === "string" ? variant : variant.label;
  };
  const runs = Number(process.env.MICRO_RUNS ?? "3");
  const results = new Map<Name, number[]>(names.map((name) => [name, []]));
  const pin = Bun.which("taskset") === null ? [] : ["taskset", "-c", "0"];
  for (let run = 0; run < runs; run++) {
    for (const name of names) {
      const child = Bun.spawnSync([...pin, process.execPath, script, name], {
        env: { ...process.env, MICRO_N: String(n) },
      });
      const last = child.stdout.toString().trim().split("\n").pop() ?? "";
      results.get(name)?.push((JSON.parse(last) as { ns: number }).ns);
    }
  }
  const best = new Map<Name, number>();
  console.log(`\n${"variant".padEnd(46)} best ns   runs (ns)`);
  for (const name of names) {
    const times = results.get(name) ?? [];
    best.set(name, Math.min(...times));
    console.log(
      `${label(name).padEnd(46)} ${Math.min(...times)
        .toFixed(0)
        .padStart(7)}   ${times.map((v) => v.toFixed(0)).join(", ")}`,
    );
  }
  return best;
}
