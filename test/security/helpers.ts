import type { ServerHandle, Webfw } from "../../src/index.ts";
import type { StartOptions } from "../../src/types.ts";

/** Starts `app` on 127.0.0.1, port 0, quietly (no access log, no signal handlers). */
export function startQuiet(app: Webfw, options: StartOptions = {}): Promise<ServerHandle> {
  return app.start({ port: 0, host: "127.0.0.1", accessLog: false, handleSignals: false, ...options });
}

/**
 * Where the suites record what they tried, for `test/soak/report.ts`. Only when
 * `WEBFW_RESULTS_DIR` is set (the soak runner sets it), so a plain `bun test`
 * writes nothing into the tree.
 */
export function recordResults(suite: string, rows: ResultRow[]): void {
  const dir = process.env.WEBFW_RESULTS_DIR;
  if (!dir || rows.length === 0) return;
  const { mkdirSync, writeFileSync } = require("node:fs") as typeof import("node:fs");
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/${suite}.json`, `${JSON.stringify({ suite, rows }, null, 2)}\n`);
}

export interface ResultRow {
  /** What was sent or done. */
  input: string;
  /** What the server answered (status, close code, …). */
  outcome: string;
  /** The server served a normal request afterwards. */
  survived?: boolean;
  /** Group in the report table (e.g. "request line", "body", "WebSocket"). */
  group?: string;
}

/** Collects rows during a test file and writes them in `afterAll`. */
export class Results {
  readonly rows: ResultRow[] = [];
  constructor(readonly suite: string) {}
  add(row: ResultRow): void {
    this.rows.push(row);
  }
  write(): void {
    recordResults(this.suite, this.rows);
  }
}
