import type { ServerHandle, Webfw } from "../../src/index.ts";

/**
 * `app.start()` as a suite wants it: loopback on a free port, no signal handlers (the test
 * runner keeps its own), no access log, and none of the runner's command-line flags read
 * (docs/cli.md: `app.start()` reads `process.argv` unless given `argv`).
 */
export function startQuiet(app: Webfw): Promise<ServerHandle> {
  return app.start({ port: 0, host: "127.0.0.1", handleSignals: false, accessLog: false, argv: [] });
}
