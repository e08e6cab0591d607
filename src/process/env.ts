/**
 * Environment markers passed from a launcher (supervisor or dev reloader) to the
 * server processes it starts, so `app.start()` in a child serves instead of launching again.
 */
export const CHILD_ENV = "WEBFW_CHILD";
/** 0-based slot of a supervised child (only slot 0 opens the browser). */
export const CHILD_INDEX_ENV = "WEBFW_CHILD_INDEX";
export const DEV_CHILD_ENV = "WEBFW_DEV_CHILD";
/** How many times the dev reloader has restarted the app (0 on the first start). */
export const DEV_RESTARTS_ENV = "WEBFW_DEV_RESTARTS";

export type Env = Record<string, string | undefined>;

/** A server process started by `superviseProcesses` (listens with `reusePort`). */
export function isSupervisedChild(env: Env = process.env): boolean {
  return env[CHILD_ENV] === "1";
}

/** The app process run by the `--dev` reloader. */
export function isDevChild(env: Env = process.env): boolean {
  return env[DEV_CHILD_ENV] === "1";
}

/** Copies an env without undefined values, as `Bun.spawn` wants. */
export function cleanEnv(env: Env, extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return Object.assign(out, extra);
}

/**
 * A signal repeated within this window is the same event delivered twice (Ctrl-C
 * reaches the whole process group, and a parent forwards it too), not a human
 * asking to force the shutdown.
 */
export const REPEAT_SIGNAL_WINDOW_MS = 1_000;
