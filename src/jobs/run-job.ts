/**
 * One run of a job handler, whatever queue delivered it (src/jobs/memory-queue.ts,
 * src/jobs/bullmq-queue.ts): its time limit, its span (a child of the request that enqueued it),
 * its log line and its counts. A handler marked `offload` runs on the worker pool.
 */
import { Request } from "../http/request.ts";
import { logger } from "../log/logger.ts";
import type { TracingHooks } from "../observability/hooks.ts";
import type { WorkerPool } from "../workers/pool.ts";
import { JobTimeoutError } from "./errors.ts";
import type { JobHandler, ResolvedJobOptions } from "./options.ts";
import { countJob, countJobDuration } from "./stats.ts";

export interface JobDefinition {
  readonly name: string;
  readonly handler: JobHandler;
  readonly options: ResolvedJobOptions;
}

/** What a run needs from the running server: set when it starts (src/jobs/mount.ts). */
export interface RunEnvironment {
  tracing?: TracingHooks;
  pool: WorkerPool | null;
}

/** A job as the queues hand it over. */
export interface Delivery {
  id: string;
  data: unknown;
  attempt: number;
  /** The trace context of the work that enqueued it (W3C headers), when tracing was on there. */
  trace?: Record<string, string>;
}

/** The pool route key of an offloaded job's handler (src/workers/run-call.ts loads them). */
export const offloadKey = (name: string): string => `JOB ${name}`;

/** Runs the handler once; resolves with its value, rejects with its error (or a timeout). */
export async function runJob(
  definition: JobDefinition,
  delivery: Delivery,
  environment: RunEnvironment,
  stopping: AbortSignal,
): Promise<unknown> {
  const started = performance.now();
  const fields = { job: definition.name, job_id: delivery.id, attempt: delivery.attempt };
  try {
    const run = () => invoke(definition, delivery, environment, stopping);
    const value = environment.tracing
      ? await traced(environment.tracing, definition, delivery, run)
      : await run();
    const seconds = (performance.now() - started) / 1000;
    countJob(definition.name, "completed");
    countJobDuration(definition.name, seconds);
    logger.info(`job ${definition.name} completed`, { ...fields, duration_ms: Math.round(seconds * 1000) });
    return value;
  } catch (error) {
    const retrying = delivery.attempt <= definition.options.retries;
    countJob(definition.name, retrying ? "retried" : "failed");
    logger.log(
      retrying ? "WARNING" : "ERROR",
      `job ${definition.name} ${retrying ? "failed, will retry" : "failed"}`,
      {
        ...fields,
        error: (error as Error)?.stack ?? String(error),
      },
    );
    throw error;
  }
}

async function invoke(
  definition: JobDefinition,
  delivery: Delivery,
  environment: RunEnvironment,
  stopping: AbortSignal,
): Promise<unknown> {
  const { timeoutMs, offload } = definition.options;
  if (offload && environment.pool) return onPool(environment.pool, definition, delivery, timeoutMs);
  const controller = new AbortController();
  const stop = () => controller.abort(stopping.reason);
  stopping.addEventListener("abort", stop, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const context = {
      id: delivery.id,
      name: definition.name,
      attempt: delivery.attempt,
      signal: controller.signal,
    };
    const value = Promise.resolve().then(() => definition.handler(delivery.data, context));
    if (!(timeoutMs > 0)) return await value;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new JobTimeoutError(`job ${definition.name} took longer than ${timeoutMs} ms`);
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    });
    return await Promise.race([value, expired]);
  } finally {
    clearTimeout(timer);
    stopping.removeEventListener("abort", stop);
  }
}

/**
 * The handler on a pool Worker, through the pool's own call path: the data travels as the
 * request's parsed body and the value comes back as the JSON answer. A run past `timeoutMs`
 * has its Worker terminated and replaced (the only way to stop a synchronous loop).
 */
async function onPool(pool: WorkerPool, definition: JobDefinition, delivery: Delivery, timeoutMs: number) {
  const raw = new globalThis.Request(`http://job.local/${encodeURIComponent(definition.name)}`, {
    method: "POST",
    headers: { "x-webfw-job-id": delivery.id, "x-webfw-job-attempt": String(delivery.attempt) },
  });
  const request = new Request(raw, {});
  request.parsedBody = delivery.data;
  request.id = delivery.id;
  let answer: globalThis.Response;
  try {
    answer = await pool.run(offloadKey(definition.name), request, timeoutMs);
  } catch (error) {
    if ((error as Error)?.name === "RequestTimeoutError")
      throw new JobTimeoutError(
        `job ${definition.name} took longer than ${timeoutMs} ms (its Worker was replaced)`,
      );
    throw error;
  }
  const text = await answer.text();
  if (answer.status >= 400)
    throw new Error(`job ${definition.name} failed on the worker pool: ${answer.status} ${text}`);
  if (text === "") return undefined;
  return (answer.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : text;
}

/** The run in a span `job NAME` (kind CONSUMER) whose parent is the enqueuing work's span. */
async function traced<T>(
  tracing: TracingHooks,
  definition: JobDefinition,
  delivery: Delivery,
  run: () => Promise<T>,
): Promise<T> {
  const attributes = {
    "messaging.system": "webfw",
    "messaging.operation.name": "process",
    "messaging.destination.name": definition.name,
    "messaging.message.id": delivery.id,
    "webfw.job.attempt": delivery.attempt,
  };
  const inSpan = () => tracing.inSpan(`job ${definition.name}`, attributes, () => run());
  if (!delivery.trace) return inSpan();
  // Loaded only with tracing on, which has loaded it already (src/observability/index.ts).
  const { context, propagation, ROOT_CONTEXT } = await import("@opentelemetry/api");
  return context.with(propagation.extract(ROOT_CONTEXT, delivery.trace), inSpan);
}

/** The active trace context as W3C headers, or nothing (tracing off, or no span to continue). */
export function traceCarrier(tracing: TracingHooks | undefined): Record<string, string> | undefined {
  if (!tracing) return undefined;
  const headers = new globalThis.Headers();
  tracing.inject(headers);
  const carrier = Object.fromEntries(headers.entries());
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}
