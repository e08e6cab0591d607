/**
 * Jobs over Redis with BullMQ (docs/jobs.md): one BullMQ queue per job name, stored under the
 * `webfw` prefix; each server process runs a worker for every job the app defines. A job whose
 * process died keeps its claim for `lockMs`, then BullMQ's stalled-job check hands it to another
 * process. Failed jobs are kept in Redis; completed ones are trimmed.
 */
import { type Job, Queue, Worker } from "bullmq";
import { logger } from "../log/logger.ts";
import { type FailedJob, graceOver, type JobQueue } from "./queue.ts";
import { type Delivery, type JobDefinition, type RunEnvironment, runJob } from "./run-job.ts";

const PREFIX = "webfw";
/** Completed jobs kept for a look (BullMQ keeps each as a hash): the newest ones, for an hour. */
const KEEP_COMPLETED = { age: 3600, count: 1000 };

interface Payload {
  data: unknown;
  trace?: Record<string, string>;
}

export class BullMqQueue implements JobQueue {
  private readonly queues = new Map<string, Queue>();
  private readonly workers: Worker[] = [];
  private readonly connection: { url: string; maxRetriesPerRequest: null };
  private readonly stopping = new AbortController();

  constructor(
    url: string,
    private readonly definitions: ReadonlyMap<string, JobDefinition>,
  ) {
    // BullMQ's workers block on Redis: a command waits for a reconnection instead of failing.
    this.connection = { url, maxRetriesPerRequest: null };
  }

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection, prefix: PREFIX });
      queue.on("error", (error) => logger.warning("job queue error", { job: name, error: String(error) }));
      this.queues.set(name, queue);
    }
    return queue;
  }

  async start(definitions: ReadonlyMap<string, JobDefinition>, environment: RunEnvironment): Promise<void> {
    for (const definition of definitions.values()) {
      const { concurrency, lockMs, retries } = definition.options;
      const worker = new Worker(
        definition.name,
        (job: Job<Payload>) => {
          const delivery: Delivery = {
            id: job.id ?? "",
            data: job.data.data,
            attempt: job.attemptsMade + 1,
            trace: job.data.trace,
          };
          return runJob(definition, delivery, environment, this.stopping.signal);
        },
        {
          connection: this.connection,
          prefix: PREFIX,
          concurrency,
          lockDuration: lockMs,
          // A dead process's job is found by the next check after its lock expired.
          stalledInterval: lockMs,
          // A job found stalled (its process died) runs again, as often as it may be retried.
          maxStalledCount: retries + 1,
        },
      );
      worker.on("error", (error) =>
        logger.warning("job worker error", { job: definition.name, error: String(error) }),
      );
      this.workers.push(worker);
    }
    // A bad URL or a Redis that is away fails the start, as for the broadcast relay.
    await Promise.all(this.workers.map((worker) => worker.waitUntilReady()));
  }

  async enqueue(
    name: string,
    data: unknown,
    options: { delay: number; id?: string },
    trace?: Delivery["trace"],
  ) {
    const definition = this.definitions.get(name);
    if (!definition) throw new TypeError(`no job named '${name}' (app.job registers one)`);
    const { retries, backoff } = definition.options;
    const payload: Payload = trace ? { data, trace } : { data };
    const job = await this.queue(name).add(name, payload, {
      jobId: options.id,
      delay: options.delay || undefined,
      attempts: retries + 1,
      backoff: { type: backoff.type, delay: backoff.delayMs },
      removeOnComplete: KEEP_COMPLETED,
      removeOnFail: false,
    });
    return job.id ?? "";
  }

  async failed(name: string, limit: number): Promise<FailedJob[]> {
    const jobs = await this.queue(name).getFailed(0, limit - 1);
    return jobs.map((job) => ({
      id: job.id ?? "",
      name,
      data: (job.data as Payload).data,
      error: job.failedReason,
      attempts: job.attemptsMade,
      failedAt: new Date(job.finishedOn ?? job.timestamp),
    }));
  }

  async stop(graceMs: number): Promise<void> {
    // Waits for running jobs; past the grace, a run left is abandoned (its lock lapses and another process retries it).
    const closing = Promise.all(this.workers.map((worker) => worker.close()));
    const late = await Promise.race([closing.then(() => false), graceOver(graceMs)]);
    if (late) {
      this.stopping.abort(new Error("the server is stopping"));
      await Promise.all(this.workers.map((worker) => worker.close(true)));
    }
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }
}
