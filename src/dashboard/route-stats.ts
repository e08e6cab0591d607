/**
 * Per-route charts of the dashboard (docs/dashboard.md): rate, latency percentiles and errors for
 * each second of the last minutes, in a fixed ring of one-second buckets per route.
 */

const SECONDS = 300;
/** Durations kept per bucket for the percentiles; past it, every other one is replaced (a sample). */
const SAMPLES = 128;

interface Bucket {
  second: number;
  count: number;
  errors: number;
  durations: number[];
}

export interface StatPoint {
  /** Epoch seconds. */
  t: number;
  count: number;
  errors: number;
  p50: number;
  p95: number;
  p99: number;
}

export class RouteStats {
  private readonly routes = new Map<string, Bucket[]>();

  constructor(private readonly now: () => number = () => Date.now()) {}

  add(route: string, status: number, durationMs: number): void {
    let ring = this.routes.get(route);
    if (ring === undefined) {
      ring = [];
      this.routes.set(route, ring);
    }
    const second = Math.floor(this.now() / 1000);
    const slot = second % SECONDS;
    let bucket = ring[slot];
    if (bucket === undefined || bucket.second !== second) {
      bucket = { second, count: 0, errors: 0, durations: [] };
      ring[slot] = bucket;
    }
    bucket.count++;
    if (status >= 500) bucket.errors++;
    if (bucket.durations.length < SAMPLES) bucket.durations.push(durationMs);
    else bucket.durations[bucket.count % SAMPLES] = durationMs;
  }

  /** Every route's points over the last `seconds` (at most 300), oldest first, one a second. */
  series(seconds: number): Record<string, StatPoint[]> {
    const span = Math.min(Math.max(1, Math.floor(seconds)), SECONDS);
    const last = Math.floor(this.now() / 1000);
    const out: Record<string, StatPoint[]> = {};
    for (const [route, ring] of this.routes) {
      const points: StatPoint[] = [];
      for (let t = last - span + 1; t <= last; t++) {
        const bucket = ring[t % SECONDS];
        if (bucket === undefined || bucket.second !== t) {
          points.push({ t, count: 0, errors: 0, p50: 0, p95: 0, p99: 0 });
          continue;
        }
        const sorted = [...bucket.durations].sort((a, b) => a - b);
        points.push({
          t,
          count: bucket.count,
          errors: bucket.errors,
          p50: percentile(sorted, 0.5),
          p95: percentile(sorted, 0.95),
          p99: percentile(sorted, 0.99),
        });
      }
      out[route] = points;
    }
    return out;
  }
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const value = sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
  return Math.round(value * 1000) / 1000;
}
