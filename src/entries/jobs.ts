/** `webfw/jobs`: background jobs and cron (docs/jobs.md). */
export type { CronRun } from "../jobs/cron-runner.ts";
export { JobTimeoutError } from "../jobs/errors.ts";
export type {
  BackoffOptions,
  CronOptions,
  EnqueueOptions,
  JobContext,
  JobHandler,
  JobOptions,
} from "../jobs/options.ts";
export type { FailedJob } from "../jobs/queue.ts";
