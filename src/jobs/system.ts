/**
 * An app's cron schedules and jobs (docs/jobs.md): what `app.cron`, `app.job` and `app.enqueue`
 * register and call. Loaded with the first of them: an app without jobs never loads it, nor
 * croner, nor BullMQ. The server starts it (src/jobs/mount.ts); the queue is BullMQ when the app
 * has a Redis URL (`configureBroadcast({ redisUrl })`), else the in-memory one.
 */
import { logger } from "../log/logger.ts";
import { CHILD_INDEX_ENV, isSupervisedChild } from "../process/env.ts";
import { inWorkerMode } from "../workers/worker-mode.ts";
import { LocalCronLock, RedisCronLock } from "./cron-lock.ts";
import { type CronDefinition, type CronRun, CronRunner } from "./cron-runner.ts";
import type { JobEnqueuer } from "./lookup.ts";
import { MemoryQueue } from "./memory-queue.ts";
import {
  type CronOptions,
  checkEnqueueOptions,
  checkName,
  checkSchedule,
  type EnqueueOptions,
  type JobHandler,
  type JobOptions,
  resolveJobOptions,
} from "./options.ts";
import type { FailedJob, JobQueue } from "./queue.ts";
import { type JobDefinition, type RunEnvironment, traceCarrier } from "./run-job.ts";
import { countJob } from "./stats.ts";

export class JobSystem implements JobEnqueuer {
  readonly jobs = new Map<string, JobDefinition>();
  readonly crons: CronDefinition[] = [];
  private queueValue: JobQueue | null = null;
  private environment: RunEnvironment = { pool: null };
  private cronRunner: CronRunner | null = null;
  private started = false;

  /** `redisUrl` reads the app's Redis URL when the queue is first needed. */
  constructor(private readonly redisUrl: () => string | null) {}

  cron(schedule: string, fn: (run: CronRun) => unknown, options: CronOptions): void {
    if (typeof fn !== "function") throw new TypeError("app.cron() takes a function");
    if (options === null || typeof options !== "object") throw new TypeError("app.cron() needs { name }");
    const name = checkName(options.name, "cron");
    if (this.crons.some((cron) => cron.name === name))
      throw new TypeError(`a cron named '${name}' already exists`);
    if (options.timezone !== undefined && typeof options.timezone !== "string")
      throw new TypeError("timezone must be an IANA time zone name");
    checkSchedule(schedule, options.timezone);
    this.crons.push({ name, schedule: schedule.trim(), timezone: options.timezone, fn });
  }

  job(name: string, handler: JobHandler, options?: JobOptions): void {
    checkName(name, "job");
    if (typeof handler !== "function") throw new TypeError("app.job() takes a handler function");
    if (this.jobs.has(name)) throw new TypeError(`a job named '${name}' already exists`);
    this.jobs.set(name, { name, handler, options: resolveJobOptions(options) });
  }

  private get queue(): JobQueue {
    if (this.queueValue === null) {
      const url = this.redisUrl();
      if (url !== null) {
        const { BullMqQueue } = require("./bullmq-queue.ts") as typeof import("./bullmq-queue.ts");
        this.queueValue = new BullMqQueue(url, this.jobs);
      } else {
        // A handler Worker's memory is not the main thread's: a job queued here would never run.
        if (inWorkerMode())
          throw new Error(
            "app.enqueue() in an offloaded handler needs Redis (configureBroadcast({ redisUrl }))",
          );
        this.queueValue = new MemoryQueue();
      }
    }
    return this.queueValue;
  }

  async enqueue(name: string, data: unknown, options?: EnqueueOptions): Promise<string> {
    if (!this.jobs.has(name)) throw new TypeError(`no job named '${name}' (app.job registers one)`);
    const checked = checkEnqueueOptions(options);
    const id = await this.queue.enqueue(name, data, checked, traceCarrier(this.environment.tracing));
    countJob(name, "enqueued");
    return id;
  }

  async failed(name: string, options: { limit?: number } = {}): Promise<FailedJob[]> {
    if (!this.jobs.has(name)) throw new TypeError(`no job named '${name}'`);
    const limit = options.limit ?? 100;
    if (!Number.isSafeInteger(limit) || limit < 1) throw new TypeError("limit must be a positive integer");
    return this.queue.failed(name, limit);
  }

  offloadedHandlers(): Map<string, JobHandler> {
    const handlers = new Map<string, JobHandler>();
    for (const definition of this.jobs.values())
      if (definition.options.offload) handlers.set(definition.name, definition.handler);
    return handlers;
  }

  /** The server starts: jobs begin to run, schedules to tick. Says how (Redis or not). */
  async start(environment: RunEnvironment): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.environment = environment;
    const url = this.redisUrl();
    if (this.jobs.size > 0) {
      if (url === null)
        logger.warning(
          "jobs: in-memory queue (no Redis): jobs run in the process that enqueued them and are lost when it stops; configureBroadcast({ redisUrl }) makes them durable (docs/jobs.md)",
        );
      await this.queue.start(this.jobs, environment);
    }
    if (this.crons.length === 0) return;
    if (url === null) {
      // Without Redis nothing is shared between processes: the first process of the machine runs the ticks.
      const first = !isSupervisedChild() || (process.env[CHILD_INDEX_ENV] ?? "0") === "0";
      logger.warning(
        `cron: no Redis: each tick runs once on this machine${first ? "" : " (in its first process, not this one)"}; configureBroadcast({ redisUrl }) runs it once across machines (docs/jobs.md)`,
      );
      if (!first) return;
      this.cronRunner = new CronRunner(new LocalCronLock(), environment.tracing);
    } else {
      const lock = new RedisCronLock(url);
      await lock.connect();
      this.cronRunner = new CronRunner(lock, environment.tracing);
    }
    this.cronRunner.start(this.crons);
  }

  /** The server stops: no more ticks or jobs; running ones get up to `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await Promise.all([this.cronRunner?.stop(graceMs), this.queueValue?.stop(graceMs)]);
    this.cronRunner = null;
    // BullMQ's connections are closed for good: a later start makes new ones. The in-memory queue
    // keeps what is still waiting for that start.
    if (this.redisUrl() !== null) this.queueValue = null;
  }
}
