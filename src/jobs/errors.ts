/** A job run took longer than its `timeoutMs` (docs/jobs.md): the run fails, and is retried if it may be. */
export class JobTimeoutError extends Error {
  override name = "JobTimeoutError";
}
