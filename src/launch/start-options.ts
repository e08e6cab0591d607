import type { AppState } from "../app-state.ts";
import type { TransportOptions } from "../transport/options.ts";
import type { StartPlan } from "./prepare-start.ts";

/** `tls`, `http2` and `http3` come from src/transport/options.ts (docs/deployment.md). */
export interface StartOptions extends TransportOptions {
  /** Port; 0 picks a free one. Wins over `--port` and `WEBFW_PORT`. Default 8080. */
  port?: number;
  /** Interface to bind; wins over `--host` and `WEBFW_HOST`. Default 127.0.0.1. */
  host?: string;
  /** Flags to read instead of `process.argv` (which is read only when the app file is the program run). */
  argv?: string[];
  /** Stop gracefully on SIGINT/SIGTERM; default: when the app file is the program run. */
  handleSignals?: boolean;
  /** How long `stop()` waits for in-flight requests before closing them. Default 10 s. */
  drainTimeoutMs?: number;
  /** Share the port with other processes (`--processes`). */
  reusePort?: boolean;
  /** Bun Workers that run the handlers of `offload: true` routes off the main thread (`--workers`); 1 runs them inline. */
  workers?: number;
  /** One log line per request at INFO; default: when the app file is the program run. */
  accessLog?: boolean;
  /**
   * Seconds a connection may sit idle (keep-alive, or a request body that stopped arriving) before it is
   * closed: Bun's `idleTimeout`, 0-255, default 10; 0 disables it. Bun ticks every 4 s, so expect up to 4 s more.
   */
  idleTimeout?: number;
}

export interface ResolvedStart {
  host: string;
  port: number;
  dev: boolean;
  reusePort: boolean;
  handleSignals: boolean;
  workers: number;
  accessLog: boolean;
  idleTimeout: number;
}

/** Merges explicit options, flags and environment, in that order of precedence. */
export function resolveStart(app: AppState, options: StartOptions, plan?: StartPlan): ResolvedStart {
  const isMain = Bun.main === app.mainFile;
  const env = process.env;
  const flags = plan?.flags;
  // Flags already fold in WEBFW_HOST / WEBFW_PORT (flags win); explicit options win over both.
  const host = options.host ?? flags?.host ?? env.WEBFW_HOST ?? "127.0.0.1";
  const port = options.port ?? flags?.port ?? parsePort(env.WEBFW_PORT) ?? 8080;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`invalid port ${port}`);
  if (options.workers !== undefined && (!Number.isInteger(options.workers) || options.workers < 1)) {
    throw new RangeError(`invalid workers ${options.workers}`);
  }
  const idleTimeout = options.idleTimeout ?? 10;
  if (!Number.isInteger(idleTimeout) || idleTimeout < 0 || idleTimeout > 255) {
    throw new RangeError(
      `idleTimeout must be an integer number of seconds from 0 to 255, got ${idleTimeout}`,
    );
  }
  return {
    host,
    port,
    dev: app.config.dev || (flags?.dev ?? false),
    reusePort: options.reusePort ?? plan?.reusePort ?? false,
    handleSignals: options.handleSignals ?? isMain,
    workers: options.workers ?? flags?.workers ?? 1,
    accessLog: options.accessLog ?? isMain,
    idleTimeout,
  };
}

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new RangeError(`invalid WEBFW_PORT '${value}'`);
  return port;
}
