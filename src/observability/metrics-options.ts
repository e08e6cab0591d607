/** The `metrics` option of `new Webfw(path, { metrics })`, checked when the app is made. */

/** `new Webfw(path, { metrics: true | { … } })`. */
export interface MetricsOptions {
  /** Where the scrape endpoint answers. Default `/metrics`. */
  path?: string;
  /** Upper bounds (seconds) of the request-duration histogram. Default: OpenTelemetry's HTTP buckets. */
  buckets?: number[];
  /** prom-client's process and runtime metrics (`process_*`, `nodejs_*`). Default true. */
  defaultMetrics?: boolean;
}

export interface ResolvedMetricsOptions {
  path: string;
  buckets: number[];
  defaultMetrics: boolean;
}

/** The boundaries OpenTelemetry recommends for `http.server.request.duration`. */
export const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** Checks the option at construction, so a bad path or bucket fails `new Webfw`, not the first scrape. */
export function resolveMetricsOptions(
  value: boolean | MetricsOptions | undefined,
): ResolvedMetricsOptions | null {
  if (value === undefined || value === false) return null;
  const options = value === true ? {} : value;
  if (typeof options !== "object" || options === null) {
    throw new TypeError("metrics must be true, false or an object { path, buckets, defaultMetrics }");
  }
  const path = options.path ?? "/metrics";
  if (typeof path !== "string" || !path.startsWith("/") || /[\s?#]/.test(path)) {
    throw new TypeError(`metrics.path must be an absolute path without query, got ${JSON.stringify(path)}`);
  }
  const buckets = options.buckets ?? DEFAULT_BUCKETS;
  if (
    !Array.isArray(buckets) ||
    buckets.length === 0 ||
    buckets.some(
      (b, i) =>
        typeof b !== "number" ||
        !(b > 0) ||
        !Number.isFinite(b) ||
        (i > 0 && b <= (buckets[i - 1] as number)),
    )
  ) {
    throw new TypeError("metrics.buckets must be increasing positive numbers of seconds");
  }
  return { path, buckets: [...buckets], defaultMetrics: options.defaultMetrics ?? true };
}
