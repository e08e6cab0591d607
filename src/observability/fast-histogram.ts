/**
 * The request-duration histogram, kept in plain numbers and handed to
 * prom-client as a custom metric (`registry.registerMetric`). prom-client's
 * own `Histogram#observe` hashes the label set on every call (≈ 1 µs here,
 * measured in bench/observability-micro.ts), a tenth of a whole `GET /`; an
 * observation here is a bucket search over the bounds and three additions.
 * The exported shape is prom-client's (buckets cumulative, `_sum`, `_count`,
 * `aggregator: "sum"`), so `AggregatorRegistry.aggregate` adds processes up
 * and the text exposition is the one a prom-client histogram writes.
 */
import type { MetricObjectWithValues, MetricValueWithName } from "prom-client";

/** One label set's counts; `counts[i]` is the number of observations in bucket i (not cumulative). */
export interface Series {
  readonly labels: Readonly<Record<string, string>>;
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export class FastHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    /** Upper bounds, increasing; `+Inf` is implied. */
    private readonly bounds: readonly number[],
  ) {}

  /**
   * The counts of one label set, kept by the caller. Asking twice for the same labels (two routes'
   * layers that both answer 404, two unknown methods) gives the same series: one line each.
   */
  seriesFor(labels: Record<string, string>): Series {
    const key = JSON.stringify(Object.entries(labels).sort());
    let series = this.series.get(key);
    if (series === undefined) {
      series = { labels, counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    return series;
  }

  observe(series: Series, value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    (series.counts as Float64Array)[i] = ((series.counts as Float64Array)[i] as number) + 1;
    series.sum += value;
    series.count++;
  }

  /** prom-client's JSON form (what `registry.getMetricsAsJSON()` and the exposition read). */
  async get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    const values: MetricValueWithName<string>[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const series of this.series.values()) {
      if (series.count === 0) continue;
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i] as number;
        values.push({ labels: { le: bound, ...series.labels }, value: cumulative, metricName: bucketName });
      });
      values.push({ labels: { le: "+Inf", ...series.labels }, value: series.count, metricName: bucketName });
      values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...series.labels }, value: series.count, metricName: `${this.name}_count` });
    }
    // Plain data only (no `collect` function): snapshots cross the IPC channel to other processes.
    const data = { name: this.name, help: this.help, type: "histogram", values, aggregator: "sum" };
    return data as unknown as MetricObjectWithValues<MetricValueWithName<string>>;
  }
}
