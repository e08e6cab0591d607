/** What the job system asks of a queue: BullMQ over Redis, or the in-memory one (docs/jobs.md). */
import type { Delivery, JobDefinition, RunEnvironment } from "./run-job.ts";

/** A job whose last run failed and that will not run again: kept to be looked at (`app.failedJobs`). */
export interface FailedJob {
  id: string;
  name: string;
  data: unknown;
  /** The last run's error message. */
  error: string;
  /** Runs made (the first and the retries). */
  attempts: number;
  failedAt: Date;
}

export interface JobQueue {
  /** Starts running the jobs of `definitions` (the server starts). */
  start(definitions: ReadonlyMap<string, JobDefinition>, environment: RunEnvironment): Promise<void>;
  /** Adds a job; resolves with its id once it is stored (in Redis, or in memory). */
  enqueue(
    name: string,
    data: unknown,
    options: { delay: number; id?: string },
    trace?: Delivery["trace"],
  ): Promise<string>;
  /** The failed jobs of `name` kept, newest first. */
  failed(name: string, limit: number): Promise<FailedJob[]>;
  /** Stops taking jobs and waits for running ones, up to `graceMs`; then closes connections. */
  stop(graceMs: number): Promise<void>;
}

/** Failed jobs kept per name by the in-memory queue (BullMQ keeps them all in Redis). */
export const KEPT_FAILED = 1000;

/** Resolves after `ms` without keeping the process alive (a stopping server must be free to exit). */
export function graceOver(ms: number): Promise<true> {
  return new Promise((resolve) => setTimeout(() => resolve(true), ms).unref());
}
