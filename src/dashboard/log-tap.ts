/**
 * The dashboard's log ring (docs/dashboard.md): every line still goes where it went, and a copy
 * lands on the request whose work wrote it (found through the recorder's async context), so a
 * request opens to its own log lines. Removed when the server stops.
 */
import { type LogSink, logger } from "../log/logger.ts";
import type { Records, RequestRecord } from "./records.ts";

export function tapLogs(records: Records, current: () => RequestRecord | undefined): () => void {
  const previous = logger.sink;
  const tap: LogSink = (line, level) => {
    previous(line, level);
    records.log(current(), line, level);
  };
  logger.setSink(tap);
  return () => {
    // Only when nobody replaced the tap since (another server of this process, a test's sink).
    if (logger.sink === tap) logger.setSink(previous);
  };
}
