/**
 * The one flag parser shared by `bunx webfw app.ts [flags]` and `bun app.ts [flags]`
 * (through `app.start()`), so both accept exactly the same flags and reject the same
 * mistakes with the same messages.
 */
import type { LogFormat, LogLevel } from "../log/logger.ts";
import { FlagError } from "./flag-error.ts";
import type { TemplateName } from "./flag-table.ts";
import { parseInteger } from "./flag-values.ts";
import type * as Help from "./help.ts";
import type * as ParseArgv from "./parse-argv.ts";
import type { ParsedArgv } from "./parse-argv.ts";

// The flag table (FLAG_DEFS, findFlag, TEMPLATES) is imported from ./flag-table.ts itself: a server
// started without flags does not load it (start-up, docs/performance.md, "Start-up and idle memory").
export type { FlagDef, FlagGroup, FlagKind, TemplateName } from "./flag-table.ts";
export { FlagError };

/** No flags (`bun app.ts`): nothing to split, and ./parse-argv.ts with the flag table stays unloaded. */
function parseArgv(argv: readonly string[]): ParsedArgv {
  if (argv.length === 0) return { values: new Map(), positionals: [], positionalIndices: [] };
  return (require("./parse-argv.ts") as typeof ParseArgv).parseArgv(argv);
}

/**
 * The `--help` text (./help.ts), loaded when it is shown: a server started without `--help` or a
 * bad flag never reads it (start-up, docs/performance.md, "Start-up and idle memory").
 */
export function usage(): string {
  return (require("./help.ts") as typeof Help).usage();
}

/** Whether the flags ask for an action that runs instead of serving (./actions.ts: help, version, docs, create). */
export function wantsOneShotAction(flags: StartFlags): boolean {
  return flags.help || flags.version || flags.docs || flags.create || flags.createNativeFile !== undefined;
}

export interface CreateFlags {
  /** Package name of the new project (defaults to the directory's name). */
  name?: string;
  /** Directory to create (defaults to the name). */
  dir?: string;
  template?: TemplateName;
  /** `--docker` / `--no-docker`; undefined asks (or takes the default with `--yes`). */
  docker?: boolean;
  /** Never prompt: take defaults for anything not given. */
  yes: boolean;
  /** Version spec of the `webfw` dependency written into the scaffold's package.json. */
  webfwSpec?: string;
}

export interface StartFlags {
  processes: number;
  workers: number;
  dev: boolean;
  fast: boolean;
  logLevel: LogLevel;
  /** `--log-format`: `text` (logfmt, the default) or `json` (one object per line). */
  logFormat: LogFormat;
  /** `--otel`: start the OpenTelemetry SDK and export traces over OTLP/HTTP (docs/observability.md). */
  otel: boolean;
  /** `--metrics`: serve `GET /metrics` for Prometheus (docs/observability.md). */
  metrics: boolean;
  host?: string;
  port?: number;
  create: boolean;
  docs: boolean;
  openBrowser: boolean;
  version: boolean;
  help: boolean;
  compileNativePath?: string;
  createNativeFile?: string;
  disableOpenapi: boolean;
  /** `--tls-cert` (or `$WEBFW_TLS_CERT`): path of the PEM certificate chain; always together with `tlsKey`. */
  tlsCert?: string;
  /** `--tls-key` (or `$WEBFW_TLS_KEY`): path of the PEM private key. */
  tlsKey?: string;
  /** `--http2`: HTTP/2 beside HTTP/1.1 (ALPN with TLS, prior knowledge without). */
  http2: boolean;
  /** `--http3`: HTTP/3 (QUIC, UDP on the same port) beside the rest; needs TLS. */
  http3: boolean;
  createOptions: CreateFlags;
  /** Arguments that are not flags (for `webfw`, the app file). `app.start()` ignores them. */
  positionals: string[];
  /** Long names of the flags given explicitly on the command line (after alias resolution). */
  explicit: ReadonlySet<string>;
}

export interface FastChoice {
  processes: number;
  workers: number;
  logLevel: LogLevel;
}

/**
 * What `--fast` picks. One server process per core: processes share nothing, so they
 * scale both I/O-bound and CPU-bound routes without the worker round trip
 * (≈40–55 µs per offloaded call, docs/workers.md). With every core already running a
 * process there is no idle core for a worker pool to use, so workers stay at 1
 * (inline). WARNING drops the per-request access line, which costs throughput.
 * See docs/cli.md; explicit `--processes`, `--workers`, `--log-level` win.
 */
export function fastChoice(cores: number): FastChoice {
  const n = Number.isInteger(cores) && cores > 0 ? cores : 1;
  return { processes: n, workers: 1, logLevel: "WARNING" };
}

export interface ParseOptions {
  /** CPU count for `--fast`; defaults to `navigator.hardwareConcurrency`. */
  cores?: number;
}

type Env = Record<string, string | undefined>;

/**
 * Parses the flags after the program name (`process.argv.slice(2)`). Throws
 * `FlagError` on an unknown flag, a bad value or a bad combination.
 * Environment: `WEBFW_HOST`, `WEBFW_PORT` (flags win).
 */
export function parseFlags(argv: readonly string[], env: Env = {}, options: ParseOptions = {}): StartFlags {
  const { values, positionals } = parseArgv(argv);
  const explicit = new Set(values.keys());
  const str = (name: string): string | undefined => values.get(name) as string | undefined;
  const bool = (name: string): boolean => values.get(name) === true;
  const int = (name: string): number | undefined => values.get(name) as number | undefined;

  const fast = bool("fast");
  const dev = bool("dev");
  const cores = options.cores ?? navigator.hardwareConcurrency;
  const tuned = fast ? fastChoice(cores) : undefined;

  const explicitProcesses = int("processes");
  if (dev && explicitProcesses !== undefined && explicitProcesses > 1) {
    throw new FlagError(
      "--dev cannot be combined with --processes greater than 1 (the reloader restarts one process)",
    );
  }
  // --dev --fast: dev wins the process count, since reloading supervises a single child.
  const processes = explicitProcesses ?? (dev ? 1 : (tuned?.processes ?? 1));
  const workers = int("workers") ?? tuned?.workers ?? 1;
  const logLevel = (str("log-level") as LogLevel | undefined) ?? tuned?.logLevel ?? "INFO";

  const host = str("host") ?? envHost(env);
  const port = int("port") ?? envPort(env);
  if (port === 0 && processes > 1) {
    throw new FlagError(
      "--port 0 cannot be combined with --processes greater than 1 (each process would get its own random port)",
    );
  }

  // Environment first, flags win (as for the host and port); a certificate without its key is a mistake either way.
  const tlsCert = str("tls-cert") ?? envValue(env, "WEBFW_TLS_CERT");
  const tlsKey = str("tls-key") ?? envValue(env, "WEBFW_TLS_KEY");
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    throw new FlagError(
      tlsCert === undefined
        ? "--tls-key needs --tls-cert too (or $WEBFW_TLS_CERT)"
        : "--tls-cert needs --tls-key too (or $WEBFW_TLS_KEY)",
    );
  }

  const create = bool("create");
  if (!create) {
    for (const name of ["name", "dir", "template", "docker", "yes", "webfw-spec"]) {
      if (values.has(name)) throw new FlagError(`--${name} only applies together with --create`);
    }
  }

  return {
    processes,
    workers,
    dev,
    fast,
    logLevel,
    logFormat: (str("log-format") as LogFormat | undefined) ?? "text",
    otel: bool("otel"),
    metrics: bool("metrics"),
    host,
    port,
    create,
    docs: bool("docs"),
    openBrowser: bool("open-browser"),
    version: bool("version"),
    help: bool("help"),
    compileNativePath: str("compile-native-path"),
    createNativeFile: str("create-native-file"),
    disableOpenapi: bool("disable-openapi"),
    tlsCert,
    tlsKey,
    http2: bool("http2"),
    http3: bool("http3"),
    createOptions: {
      name: str("name"),
      dir: str("dir"),
      template: str("template") as TemplateName | undefined,
      docker: values.has("docker") ? bool("docker") : undefined,
      yes: bool("yes"),
      webfwSpec: str("webfw-spec"),
    },
    positionals,
    explicit,
  };
}

function envHost(env: Env): string | undefined {
  const raw = env.WEBFW_HOST;
  return raw === undefined || raw.trim() === "" ? undefined : raw.trim();
}

function envValue(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === "" ? undefined : raw.trim();
}

function envPort(env: Env): number | undefined {
  const raw = env.WEBFW_PORT;
  if (raw === undefined || raw.trim() === "") return undefined;
  return parseInteger(raw, "WEBFW_PORT", 0, 65535);
}

/** argv without its positionals: what `webfw app.ts …` passes on to the app. */
export function withoutPositionals(argv: readonly string[]): string[] {
  const drop = new Set(parseArgv(argv).positionalIndices);
  return argv.filter((_, i) => !drop.has(i));
}
