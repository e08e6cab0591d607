/**
 * How `request.enqueue` and a handler Worker find their app's job system without importing it
 * (no import cycle, nothing loaded for an app without jobs): the system is registered under the
 * app's `globalDependencies` object, which every request of the app carries. The request reaches
 * this lookup through src/http/request-services.ts (docs/architecture.md, "What a Request knows").
 */
import { provideRequestServices, type RequestJobQueue } from "../http/request-services.ts";

/** The part of the job system a request reaches (src/jobs/system.ts). */
export interface JobEnqueuer extends RequestJobQueue {
  /** The handlers of `offload` jobs, for a pool Worker (src/workers/run-call.ts). */
  offloadedHandlers(): Map<string, (data: unknown, job: OffloadedJobContext) => unknown>;
}

/** What an offloaded job's handler receives as its second argument (src/jobs/options.ts `JobContext`). */
export interface OffloadedJobContext {
  readonly id: string;
  readonly name: string;
  readonly attempt: number;
  readonly signal: AbortSignal;
}

const systems = new WeakMap<object, JobEnqueuer>();

export function registerJobs(globalDependencies: object, system: JobEnqueuer): void {
  systems.set(globalDependencies, system);
}

export function jobsOf(globalDependencies: object): JobEnqueuer | undefined {
  return systems.get(globalDependencies);
}

provideRequestServices({ jobsOf });
