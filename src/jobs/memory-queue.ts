/**
 * The in-memory queue for development, used without Redis (said at start): the same options as
 * BullMQ's (concurrency, retries, backoff, delay, ids), but jobs live in this process only and
 * are lost when it stops (docs/jobs.md, "Without Redis").
 */
import { backoffDelay } from "./options.ts";
import type { FailedJob, JobQueue } from "./queue.ts";
import { graceOver, KEPT_FAILED } from "./queue.ts";
import { type Delivery, type JobDefinition, type RunEnvironment, runJob } from "./run-job.ts";

interface Entry extends Delivery {
  name: string;
  readyAt: number;
}

export class MemoryQueue implements JobQueue {
  private readonly waiting: Entry[] = [];
  private readonly running = new Map<string, number>();
  private readonly active = new Set<Promise<unknown>>();
  private readonly ids = new Set<string>();
  private readonly failedJobs = new Map<string, FailedJob[]>();
  private definitions: ReadonlyMap<string, JobDefinition> | null = null;
  private environment: RunEnvironment = { pool: null };
  private readonly stopping = new AbortController();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private nextId = 1;

  async start(definitions: ReadonlyMap<string, JobDefinition>, environment: RunEnvironment): Promise<void> {
    this.definitions = definitions;
    this.environment = environment;
    this.pump();
  }

  async enqueue(
    name: string,
    data: unknown,
    options: { delay: number; id?: string },
    trace?: Delivery["trace"],
  ) {
    const id = options.id ?? String(this.nextId++);
    if (this.ids.has(id)) return id;
    this.ids.add(id);
    // Cloned as Redis would serialize it: the handler never shares an object with the enqueuer.
    this.waiting.push({
      id,
      name,
      data: structuredClone(data),
      attempt: 1,
      trace,
      readyAt: Date.now() + options.delay,
    });
    this.pump();
    return id;
  }

  async failed(name: string, limit: number): Promise<FailedJob[]> {
    return (this.failedJobs.get(name) ?? []).slice(0, limit);
  }

  async stop(graceMs: number): Promise<void> {
    this.definitions = null;
    if (this.timer) clearTimeout(this.timer);
    const settled = Promise.allSettled([...this.active]);
    const late = await Promise.race([settled.then(() => false), graceOver(graceMs)]);
    // Handlers still running are told to stop (their signal); the process is going away.
    if (late) this.stopping.abort(new Error("the server is stopping"));
  }

  /** Starts every job that is due and has a free slot; wakes up again for the next delayed one. */
  private pump(): void {
    const definitions = this.definitions;
    if (definitions === null) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const now = Date.now();
    let nextAt = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.waiting.length; ) {
      const entry = this.waiting[i] as Entry;
      const definition = definitions.get(entry.name);
      const busy = this.running.get(entry.name) ?? 0;
      if (entry.readyAt > now) nextAt = Math.min(nextAt, entry.readyAt);
      if (!definition || entry.readyAt > now || busy >= definition.options.concurrency) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.running.set(entry.name, busy + 1);
      const run = this.run(definition, entry);
      this.active.add(run);
      void run.finally(() => {
        this.active.delete(run);
        this.running.set(entry.name, (this.running.get(entry.name) ?? 1) - 1);
        this.pump();
      });
    }
    if (nextAt !== Number.POSITIVE_INFINITY) this.timer = setTimeout(() => this.pump(), nextAt - now);
  }

  private async run(definition: JobDefinition, entry: Entry): Promise<void> {
    try {
      await runJob(definition, entry, this.environment, this.stopping.signal);
      this.ids.delete(entry.id);
    } catch (error) {
      if (entry.attempt <= definition.options.retries) {
        const delay = backoffDelay(definition.options.backoff, entry.attempt);
        this.waiting.push({ ...entry, attempt: entry.attempt + 1, readyAt: Date.now() + delay });
        return;
      }
      const kept = this.failedJobs.get(entry.name) ?? [];
      kept.unshift({
        id: entry.id,
        name: entry.name,
        data: entry.data,
        error: (error as Error)?.message ?? String(error),
        attempts: entry.attempt,
        failedAt: new Date(),
      });
      // The oldest kept job is forgotten, and its id may be enqueued again.
      for (const dropped of kept.splice(KEPT_FAILED)) this.ids.delete(dropped.id);
      this.failedJobs.set(entry.name, kept);
    }
  }
}
