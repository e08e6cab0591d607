/**
 * Counts of jobs and cron runs in this process, read by the metrics when scraped
 * (src/observability/job-metrics.ts): the job system counts, the metrics only look.
 */

export type JobOutcome = "enqueued" | "completed" | "failed" | "retried";
export type CronOutcome = "completed" | "failed" | "skipped";

export interface JobCounts {
  /** By job name, then outcome. */
  readonly jobs: Map<string, Record<JobOutcome, number>>;
  /** By cron name, then outcome. */
  readonly crons: Map<string, Record<CronOutcome, number>>;
  /** Seconds each finished job run took, by job name: [sum, count]. */
  readonly durations: Map<string, [number, number]>;
}

const counts: JobCounts = { jobs: new Map(), crons: new Map(), durations: new Map() };

export function jobCounts(): JobCounts {
  return counts;
}

export function countJob(name: string, outcome: JobOutcome): void {
  const row = counts.jobs.get(name) ?? { enqueued: 0, completed: 0, failed: 0, retried: 0 };
  counts.jobs.set(name, row);
  row[outcome]++;
}

export function countJobDuration(name: string, seconds: number): void {
  const row = counts.durations.get(name);
  if (row) {
    row[0] += seconds;
    row[1]++;
  } else counts.durations.set(name, [seconds, 1]);
}

export function countCron(name: string, outcome: CronOutcome): void {
  const row = counts.crons.get(name) ?? { completed: 0, failed: 0, skipped: 0 };
  counts.crons.set(name, row);
  row[outcome]++;
}
