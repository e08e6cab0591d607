/**
 * The series of cron schedules and jobs (docs/jobs.md), read from the job system's counts when
 * scraped (src/jobs/stats.ts): nothing is counted for them in an app without jobs.
 *   webfw_jobs_total{job, outcome}            counter (enqueued, completed, failed, retried)
 *   webfw_job_duration_seconds_sum / _count   counters of finished runs, by job
 *   webfw_cron_runs_total{cron, outcome}      counter (completed, failed, skipped)
 */
import type { Registry } from "prom-client";
import { jobCounts } from "../jobs/stats.ts";

type Prom = typeof import("prom-client");

export function registerJobMetrics(prom: Prom, registry: Registry): void {
  new prom.Counter({
    name: "webfw_jobs_total",
    help: "Jobs by outcome: enqueued here, runs completed, runs failed for good, runs failed and retried.",
    labelNames: ["job", "outcome"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [job, row] of jobCounts().jobs)
        for (const [outcome, value] of Object.entries(row)) this.inc({ job, outcome }, value);
    },
  });
  new prom.Counter({
    name: "webfw_job_duration_seconds_sum",
    help: "Seconds spent in completed job runs.",
    labelNames: ["job"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [job, [sum]] of jobCounts().durations) this.inc({ job }, sum);
    },
  });
  new prom.Counter({
    name: "webfw_job_duration_seconds_count",
    help: "Completed job runs.",
    labelNames: ["job"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [job, [, count]] of jobCounts().durations) this.inc({ job }, count);
    },
  });
  new prom.Counter({
    name: "webfw_cron_runs_total",
    help: "Cron ticks by outcome in this process: completed, failed, skipped (previous run still going, or no lock).",
    labelNames: ["cron", "outcome"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [cron, row] of jobCounts().crons)
        for (const [outcome, value] of Object.entries(row)) this.inc({ cron, outcome }, value);
    },
  });
}
