/** Graceful shutdown of a server process on SIGINT/SIGTERM (and when its supervisor dies). */
import { logger as defaultLogger, type Logger } from "../log/logger.ts";
import { type Env, isDevChild, isSupervisedChild, REPEAT_SIGNAL_WINDOW_MS } from "./env.ts";

export interface ShutdownOptions {
  /**
   * Poll for the parent's death and shut down when it happens, so a killed
   * supervisor does not leave orphan servers holding the port. Default: true
   * in a supervised or dev child.
   */
  watchParent?: boolean;
  /**
   * What a second signal does while draining: `force` exits at once (a human
   * pressing Ctrl-C twice), `ignore` keeps draining. Default: `ignore` in a child,
   * which gets Ctrl-C both from the terminal and from its supervisor, else `force`.
   * Either way a repeat within `REPEAT_SIGNAL_WINDOW_MS` is a duplicate and ignored.
   */
  repeat?: "force" | "ignore";
  /** How the process ends once `stop()` settles. Default `process.exit`. */
  exit?: (code: number) => void;
  env?: Env;
  logger?: Logger;
}

/**
 * Installs SIGINT/SIGTERM handlers that call `stop()` once (it should stop
 * accepting connections and wait for in-flight requests, then run shutdown
 * handlers), then exit 0. Returns a function that removes the handlers.
 */
export function onShutdownSignal(stop: () => unknown, options: ShutdownOptions = {}): () => void {
  const env = options.env ?? process.env;
  const child = isSupervisedChild(env) || isDevChild(env);
  const repeat = options.repeat ?? (child ? "ignore" : "force");
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const log = options.logger ?? defaultLogger;
  let stopping = false;
  let firstAt = 0;

  const begin = async (reason: string): Promise<void> => {
    if (stopping) {
      if (repeat === "force" && performance.now() - firstAt >= REPEAT_SIGNAL_WINDOW_MS) {
        log.warning("second signal: exiting without waiting", { reason });
        exit(130);
      }
      return;
    }
    stopping = true;
    firstAt = performance.now();
    log.info("shutting down", { reason, pid: process.pid });
    let code = 0;
    try {
      await stop();
    } catch (error) {
      log.error("error while shutting down", { error });
      code = 1;
    }
    exit(code);
  };

  const onSignal = (signal: NodeJS.Signals): void => {
    void begin(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  let timer: ReturnType<typeof setInterval> | undefined;
  if (options.watchParent ?? child) {
    const parent = process.ppid;
    timer = setInterval(() => {
      // Reparenting (to init or a subreaper) means the supervisor is gone.
      if (process.ppid !== parent) void begin("parent exited");
    }, 500);
    timer.unref();
  }

  return () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    if (timer) clearInterval(timer);
  };
}
