/**
 * Latency probe for the `cpu` scenario: one request every `--interval-ms`
 * (an open-loop rate, unlike wrk, so the probe itself never loads the server),
 * for `--duration` seconds. Prints one JSON line: { count, p50, p99, max, errors } (ms).
 */
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    duration: { type: "string", default: "5" },
    "interval-ms": { type: "string", default: "10" },
  },
});
if (!values.url) throw new Error("--url is required");
const url = values.url;
const interval = Number(values["interval-ms"]);
const end = performance.now() + Number(values.duration) * 1000;

const latencies: number[] = [];
let errors = 0;
while (performance.now() < end) {
  const start = performance.now();
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    if (response.status !== 200) errors++;
  } catch {
    errors++;
  }
  const elapsed = performance.now() - start;
  latencies.push(elapsed);
  if (elapsed < interval) await Bun.sleep(interval - elapsed);
}

latencies.sort((a, b) => a - b);
const at = (q: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
console.log(
  JSON.stringify({
    count: latencies.length,
    p50: at(0.5),
    p99: at(0.99),
    max: latencies.at(-1) ?? Number.NaN,
    errors,
  }),
);
