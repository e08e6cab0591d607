/**
 * Cron schedules and jobs as a mount (src/plan/mount.ts): the server starts them before it
 * listens (a Redis that is away fails `start()`) and stops them when it stops. Off (`null`) for an
 * app that registered none: nothing is loaded, nothing runs. Only `start()` runs them, never the
 * in-process client (`app.request`).
 */
import type { Mount } from "../plan/mount.ts";
import type { JobSystem } from "./system.ts";

/** How long a stopping server waits for running jobs and cron runs (as the request drain). */
const STOP_GRACE_MS = 10_000;

export function jobsMount(system: () => JobSystem | null): Mount {
  return {
    name: "jobs",
    prepare() {
      const jobs = system();
      if (jobs === null) return null;
      return {
        install(context) {
          let stopped: Promise<void> | null = null;
          return {
            starting: () => jobs.start({ tracing: context.config.tracing, pool: context.pool }),
            stopping: () => {
              stopped = jobs.stop(STOP_GRACE_MS);
            },
            closed: async () => {
              // A start that failed after starting the jobs closes the build without stopping it.
              await (stopped ?? jobs.stop(STOP_GRACE_MS));
            },
          };
        },
      };
    },
  };
}
