/**
 * `--processes N`: a supervisor that runs N copies of the server on one port
 * (each child listens with `reusePort`, so the kernel spreads connections), forwards
 * SIGINT/SIGTERM, waits for graceful exit, and restarts a child that dies.
 */
import type { Subprocess } from "bun";
import { forwardInvalidation } from "../cache/process-relay.ts";
import { listeningGate } from "../launch/announce.ts";
import { logger as defaultLogger, type Logger } from "../log/logger.ts";
import { createMetricsRelay } from "../observability/metrics-relay.ts";
import { CHILD_ENV, CHILD_INDEX_ENV, cleanEnv, type Env, REPEAT_SIGNAL_WINDOW_MS } from "./env.ts";

export interface SuperviseOptions {
  /** Number of server processes. */
  count: number;
  /** Arguments after `process.execPath` (see `respawnArgv()`). */
  argv: string[];
  env: Env;
  /** First restart delay; doubles while a child keeps crashing (default 100 ms). */
  restartDelayMs?: number;
  /** Cap of the restart delay (default 10 s). */
  maxRestartDelayMs?: number;
  /** A child that dies sooner than this after starting "failed to start" (default 1 s). */
  startupWindowMs?: number;
  /** Give up (exit 1) after this many failed starts in a row of one child (default 5). */
  maxFailedStarts?: number;
  /** A child that ran this long before crashing resets the back-off (default 30 s). */
  stableAfterMs?: number;
  /** After a shutdown signal, children still running after this are killed (default 10 s). */
  shutdownTimeoutMs?: number;
  /** The executable to run (default `process.execPath`, which is the binary itself when compiled). */
  execPath?: string;
  logger?: Logger;
}

interface Slot {
  index: number;
  proc?: Subprocess;
  startedAt: number;
  failedStarts: number;
  backoff: number;
  timer?: ReturnType<typeof setTimeout>;
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * Runs until a SIGINT/SIGTERM arrives and every child has exited (resolves 0;
 * 1 when a child had to be killed: after the timeout, or on a second signal), or until a child fails to
 * start `maxFailedStarts` times in a row (stops the others, resolves 1).
 */
export function superviseProcesses(options: SuperviseOptions): Promise<number> {
  const {
    count,
    argv,
    env,
    restartDelayMs = 100,
    maxRestartDelayMs = 10_000,
    startupWindowMs = 1_000,
    maxFailedStarts = 5,
    stableAfterMs = 30_000,
    shutdownTimeoutMs = 10_000,
    execPath = process.execPath,
    logger: log = defaultLogger,
  } = options;
  if (!Number.isInteger(count) || count < 1)
    throw new RangeError(`count must be an integer >= 1, got ${count}`);

  const slots: Slot[] = Array.from({ length: count }, (_, index) => ({
    index,
    startedAt: 0,
    failedStarts: 0,
    backoff: 0,
  }));
  let stopping = false;
  let stoppedAt = 0;
  let exitCode = 0;
  let resolveDone: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });

  // One scrape of /metrics covers every process: the one asked gathers the others' figures through
  // this relay over the IPC channel (src/observability/metrics-relay.ts). Idle unless metrics are on.
  const relay = createMetricsRelay(() =>
    slots.flatMap((s) => (s.proc ? [{ send: (message: unknown) => s.proc?.send(message) }] : [])),
  );

  // One startup line for the whole set, once every child listens (src/launch/announce.ts).
  const announce = listeningGate(count, log);

  const spawn = (slot: Slot): void => {
    slot.timer = undefined;
    if (stopping) return;
    let proc: Subprocess;
    try {
      proc = Bun.spawn([execPath, ...argv], {
        env: cleanEnv(env, { [CHILD_ENV]: "1", [CHILD_INDEX_ENV]: String(slot.index) }),
        stdio: ["inherit", "inherit", "inherit"],
        ipc: (message, child) => {
          if (announce(message, child.pid)) return;
          // A cache invalidation of one process goes to every other (src/cache/process-relay.ts).
          const children = slots.map((s) => s.proc);
          if (forwardInvalidation(message, child, children)) return;
          relay.onMessage(message, { send: (reply: unknown) => child.send(reply) });
        },
      });
    } catch (error) {
      log.error("cannot start server process", { slot: slot.index, error });
      void giveUp();
      return;
    }
    slot.proc = proc;
    slot.startedAt = performance.now();
    log.debug("server process started", { slot: slot.index, pid: proc.pid });
    void proc.exited.then(() => onExit(slot, proc));
  };

  const onExit = (slot: Slot, proc: Subprocess): void => {
    if (slot.proc === proc) slot.proc = undefined;
    if (stopping) {
      if (slots.every((s) => !s.proc)) finish();
      return;
    }
    const lived = performance.now() - slot.startedAt;
    slot.failedStarts = lived < startupWindowMs ? slot.failedStarts + 1 : 0;
    slot.backoff = lived < stableAfterMs ? slot.backoff + 1 : 1;
    const how = proc.signalCode ? `signal ${proc.signalCode}` : `code ${proc.exitCode}`;
    if (slot.failedStarts >= maxFailedStarts) {
      log.error(`server process failed to start ${slot.failedStarts} times in a row; giving up`, {
        slot: slot.index,
        pid: proc.pid,
        exit: how,
      });
      void giveUp();
      return;
    }
    const delay = Math.min(restartDelayMs * 2 ** (slot.backoff - 1), maxRestartDelayMs);
    log.warning("server process exited; restarting", {
      slot: slot.index,
      pid: proc.pid,
      exit: how,
      restart_in_ms: delay,
    });
    slot.timer = setTimeout(() => spawn(slot), delay);
  };

  const stopAll = (signal: NodeJS.Signals): void => {
    for (const slot of slots) {
      if (slot.timer) clearTimeout(slot.timer);
      slot.timer = undefined;
      slot.proc?.kill(signal);
    }
    if (slots.every((s) => !s.proc)) {
      finish();
      return;
    }
    const killer = setTimeout(() => {
      const left = slots.filter((s) => s.proc);
      if (left.length === 0) return;
      log.error("server processes did not exit in time; killing them", {
        pids: left.map((s) => s.proc?.pid).join(","),
      });
      exitCode = 1;
      for (const slot of left) slot.proc?.kill("SIGKILL");
    }, shutdownTimeoutMs);
    killer.unref();
  };

  const giveUp = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    exitCode = 1;
    stopAll("SIGTERM");
  };

  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second Ctrl-C means "now", unless it is the first one delivered twice.
      if (performance.now() - stoppedAt < REPEAT_SIGNAL_WINDOW_MS) return;
      log.warning("second signal: killing server processes", { signal });
      exitCode = 1;
      for (const slot of slots) slot.proc?.kill("SIGKILL");
      return;
    }
    stopping = true;
    stoppedAt = performance.now();
    log.info("shutting down server processes", { signal, count });
    stopAll(signal);
  };

  const finish = (): void => {
    for (const signal of SIGNALS) process.off(signal, onSignal);
    resolveDone(exitCode);
  };

  for (const signal of SIGNALS) process.on(signal, onSignal);
  log.info("starting server processes", { count, pid: process.pid });
  for (const slot of slots) spawn(slot);
  return done;
}
