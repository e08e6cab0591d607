/**
 * The startup line (docs/cli.md, "The startup line"): once the app listens, one line through the
 * logger says where, with the process id and the process and Worker counts, in every run mode.
 *
 * A supervised child (`--processes N`) does not log it: it reports its URL to the supervisor over
 * the IPC channel, and the supervisor logs one line for the whole set once each of its first N
 * children listens, so N processes still print one line (restarted children report again; the
 * supervisor ignores them).
 */
import { logger as defaultLogger, type Logger } from "../log/logger.ts";

/** What a supervised child sends its supervisor once it listens. */
export interface ListeningReport {
  readonly type: "webfw:listening";
  readonly url: string;
  readonly workers: number;
}

export function isListeningReport(message: unknown): message is ListeningReport {
  if (typeof message !== "object" || message === null) return false;
  const m = message as Record<string, unknown>;
  return m.type === "webfw:listening" && typeof m.url === "string" && typeof m.workers === "number";
}

/** Logs the line (a server process) or reports to the supervisor (a supervised child). */
export function announceListening(
  url: string,
  workers: number,
  supervised: boolean,
  log: Logger = defaultLogger,
): void {
  if (supervised && typeof process.send === "function") {
    const report: ListeningReport = { type: "webfw:listening", url, workers };
    process.send(report);
    return;
  }
  log.announce(`listening on ${url}`, { url, pid: process.pid, processes: 1, workers });
}

/**
 * The supervisor's side: feed it every IPC message; it logs the line once, when `count`
 * distinct children have reported. With port 0 each child picks its own port (the kernel
 * shares a port only when it is named), so the line lists every URL.
 * Returns true when the message was a report (handled here).
 */
export function listeningGate(
  count: number,
  log: Logger = defaultLogger,
): (message: unknown, pid: number) => boolean {
  const reported = new Map<number, ListeningReport>();
  let done = false;
  return (message, pid) => {
    if (!isListeningReport(message)) return false;
    if (done) return true;
    reported.set(pid, message);
    if (reported.size < count) return true;
    done = true;
    const urls = [...new Set([...reported.values()].map((r) => r.url))];
    log.announce(`listening on ${urls.join(", ")}`, {
      url: urls.join(","),
      pid: process.pid,
      processes: count,
      workers: message.workers,
    });
    return true;
  };
}
