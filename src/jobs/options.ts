/**
 * The options of `app.cron`, `app.job` and `app.enqueue` (docs/jobs.md), checked when registered
 * so that a mistake stops the app at its first line, not at the first tick or job.
 */
import { Cron } from "croner";

/** What a job handler receives besides its data. */
export interface JobContext {
  /** The job's id (BullMQ's, or the in-memory queue's). */
  readonly id: string;
  /** The job's name (`app.job(name, …)`). */
  readonly name: string;
  /** 1 on the first run, 2 on the first retry, … */
  readonly attempt: number;
  /** Aborted when the job's `timeoutMs` passed or the server stops. */
  readonly signal: AbortSignal;
}

export type JobHandler<D = unknown> = (data: D, job: JobContext) => unknown;

/** How long to wait before a retry: a fixed pause, or doubling from `delayMs`. */
export interface BackoffOptions {
  type: "fixed" | "exponential";
  delayMs: number;
}

export interface JobOptions {
  /** Runs of this job at once in each process. Default 1. */
  concurrency?: number;
  /** Runs after the first one fails. Default 0: a failed job is kept as failed at once. */
  retries?: number;
  /** Pause before a retry: milliseconds (fixed) or `{ type, delayMs }`. Default 1000 ms, exponential. */
  backoff?: number | BackoffOptions;
  /** Milliseconds a run may take; later it fails (and is retried). Default 0: no limit. */
  timeoutMs?: number;
  /** Runs the handler on the worker pool (`--workers N`), for CPU-bound work: data and result must be clonable. */
  offload?: boolean;
  /**
   * With Redis: milliseconds a running job stays claimed without its process renewing the claim;
   * a job whose process died (SIGKILL, power loss) runs again elsewhere after this. Default 30 000.
   */
  lockMs?: number;
}

export interface ResolvedJobOptions {
  concurrency: number;
  retries: number;
  backoff: BackoffOptions;
  timeoutMs: number;
  offload: boolean;
  lockMs: number;
}

export interface EnqueueOptions {
  /** Milliseconds before the job may run. Default 0. */
  delay?: number;
  /** A job id: enqueuing an id already waiting, running or kept is a no-op (exactly-once enqueue). */
  id?: string;
}

export interface CronOptions {
  /** Names the schedule in logs, metrics, traces and its Redis lock; unique per app. */
  name: string;
  /** IANA time zone the schedule is read in (`Europe/Paris`). Default: the machine's. */
  timezone?: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export function checkName(name: unknown, what: string): string {
  if (typeof name !== "string" || !NAME.test(name))
    throw new TypeError(
      `${what} name must be 1-128 letters, digits, '_', '.' or '-', got ${JSON.stringify(name)}`,
    );
  return name;
}

function count(value: unknown, what: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min)
    throw new TypeError(`${what} must be an integer >= ${min}, got ${JSON.stringify(value)}`);
  return value;
}

export function resolveJobOptions(options: JobOptions = {}): ResolvedJobOptions {
  const backoff = options.backoff ?? { type: "exponential", delayMs: 1000 };
  const resolved: BackoffOptions =
    typeof backoff === "number"
      ? { type: "fixed", delayMs: count(backoff, "backoff", 0, 0) }
      : { type: backoff.type, delayMs: count(backoff.delayMs, "backoff.delayMs", 1000, 0) };
  if (resolved.type !== "fixed" && resolved.type !== "exponential")
    throw new TypeError(
      `backoff.type must be "fixed" or "exponential", got ${JSON.stringify(resolved.type)}`,
    );
  if (options.offload !== undefined && typeof options.offload !== "boolean")
    throw new TypeError("offload must be true or false");
  return {
    concurrency: count(options.concurrency, "concurrency", 1, 1),
    retries: count(options.retries, "retries", 0, 0),
    backoff: resolved,
    timeoutMs: count(options.timeoutMs, "timeoutMs", 0, 0),
    offload: options.offload === true,
    lockMs: count(options.lockMs, "lockMs", 30_000, 1000),
  };
}

/** The pause before retry number `retry` (1 for the first). */
export function backoffDelay(backoff: BackoffOptions, retry: number): number {
  return backoff.type === "fixed" ? backoff.delayMs : backoff.delayMs * 2 ** (retry - 1);
}

export function checkEnqueueOptions(options: EnqueueOptions = {}): { delay: number; id?: string } {
  const delay = count(options.delay, "delay", 0, 0);
  if (
    options.id !== undefined &&
    (typeof options.id !== "string" || options.id.length === 0 || options.id.includes(":"))
  )
    throw new TypeError(`id must be a non-empty string without ':', got ${JSON.stringify(options.id)}`);
  return { delay, id: options.id };
}

/** Checks a schedule and a time zone by asking croner to plan the next run. */
export function checkSchedule(schedule: unknown, timezone: string | undefined): string {
  if (typeof schedule !== "string") throw new TypeError("cron schedule must be a string");
  const fields = schedule.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6)
    throw new TypeError(`cron schedule must have 5 fields, or 6 with seconds first, got '${schedule}'`);
  if (timezone !== undefined) {
    try {
      new Intl.DateTimeFormat("en", { timeZone: timezone });
    } catch {
      throw new TypeError(`unknown time zone '${timezone}' (an IANA name such as 'Europe/Paris')`);
    }
  }
  try {
    new Cron(schedule, { paused: true, timezone }).stop();
  } catch (error) {
    throw new TypeError(`invalid cron schedule '${schedule}': ${(error as Error).message}`);
  }
  return schedule;
}
