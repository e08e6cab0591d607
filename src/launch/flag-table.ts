/**
 * The one flag table: every flag of `bun app.ts` and `webfw`, its kind, limits and help text.
 * The parser (./flags.ts), the help (./help.ts), "did you mean" (./did-you-mean.ts) and citty's
 * argument list in cli/webfw.ts are all made from it.
 */
import { LOG_FORMATS, LOG_LEVELS } from "../log/logger.ts";

/** The project templates of `--create`. */
export type TemplateName = "plain" | "sqlite" | "postgres";
export const TEMPLATES: readonly TemplateName[] = ["plain", "sqlite", "postgres"];
export type FlagKind = "boolean" | "integer" | "string" | "enum";
export type FlagGroup = "run" | "create" | "native" | "info";

export interface FlagDef {
  /** Long name, without dashes. */
  readonly name: string;
  readonly kind: FlagKind;
  readonly description: string;
  readonly group: FlagGroup;
  /** Other long names (`compile-rust-path`) or one-letter short names (`h`). */
  readonly aliases?: readonly string[];
  readonly valueHint?: string;
  readonly options?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  /** Accepts `--no-NAME`. */
  readonly negatable?: boolean;
  /** Shown in `--help`. */
  readonly defaultText?: string;
}

/** Every flag, in `--help` order. citty's argument list for `cli/webfw.ts` is built from this table too. */
export const FLAG_DEFS: readonly FlagDef[] = [
  { name: "help", kind: "boolean", group: "info", aliases: ["h"], description: "Show this help and exit" },
  { name: "version", kind: "boolean", group: "info", description: "Show the webfw version and exit" },
  {
    name: "processes",
    kind: "integer",
    group: "run",
    min: 1,
    max: 1024,
    valueHint: "N",
    defaultText: "1",
    description: "Server processes sharing the port (reusePort); a supervisor restarts crashed ones",
  },
  {
    name: "workers",
    kind: "integer",
    group: "run",
    min: 1,
    max: 1024,
    valueHint: "N",
    defaultText: "1",
    description: "Worker threads per process for offload: true routes (1 = run them inline)",
  },
  {
    name: "dev",
    kind: "boolean",
    group: "run",
    description: "Development mode: restart on source changes (one process only)",
  },
  {
    name: "fast",
    kind: "boolean",
    group: "run",
    description: "Processes, workers and log level tuned for this machine; explicit flags win",
  },
  {
    name: "log-level",
    kind: "enum",
    group: "run",
    options: LOG_LEVELS,
    valueHint: "LEVEL",
    defaultText: "INFO",
    description: "DEBUG, INFO (one access line per request), WARNING or ERROR",
  },
  {
    name: "log-format",
    kind: "enum",
    group: "run",
    options: LOG_FORMATS,
    valueHint: "FORMAT",
    defaultText: "text",
    description: "text (logfmt key=value lines) or json (one JSON object per line) for access and error logs",
  },
  {
    name: "otel",
    kind: "boolean",
    group: "run",
    description:
      "Trace every request with OpenTelemetry and export over OTLP/HTTP to $OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318), in every process and Worker",
  },
  {
    name: "metrics",
    kind: "boolean",
    group: "run",
    description:
      "Serve GET /metrics in Prometheus text format (with --processes: the whole server in one scrape)",
  },
  {
    name: "host",
    kind: "string",
    group: "run",
    valueHint: "HOST",
    defaultText: "127.0.0.1, or $WEBFW_HOST",
    description: "Address to listen on",
  },
  {
    name: "port",
    kind: "integer",
    group: "run",
    min: 0,
    max: 65535,
    valueHint: "N",
    defaultText: "8080, or $WEBFW_PORT",
    description: "Port to listen on (0 picks a free one)",
  },
  {
    name: "tls-cert",
    kind: "string",
    group: "run",
    valueHint: "PATH",
    defaultText: "$WEBFW_TLS_CERT",
    description: "Serve HTTPS with this PEM certificate chain (needs --tls-key)",
  },
  {
    name: "tls-key",
    kind: "string",
    group: "run",
    valueHint: "PATH",
    defaultText: "$WEBFW_TLS_KEY",
    description: "The PEM private key of --tls-cert",
  },
  {
    name: "http2",
    kind: "boolean",
    group: "run",
    description: "Also speak HTTP/2 (negotiated by ALPN over TLS; prior knowledge without TLS)",
  },
  {
    name: "http3",
    kind: "boolean",
    group: "run",
    description: "Also speak HTTP/3 over QUIC on the same port (UDP); needs TLS; experimental in Bun",
  },
  {
    name: "open-browser",
    kind: "boolean",
    group: "run",
    description: "Open the app in a browser once it listens",
  },
  {
    name: "disable-openapi",
    kind: "boolean",
    group: "run",
    description: "Do not serve /openapi.json and /docs",
  },
  { name: "docs", kind: "boolean", group: "info", description: "Open the webfw documentation and exit" },
  {
    name: "create",
    kind: "boolean",
    group: "create",
    description: "Create a new project (asks questions unless given the options below)",
  },
  {
    name: "name",
    kind: "string",
    group: "create",
    valueHint: "NAME",
    description: "With --create: package name (default: the directory's name)",
  },
  {
    name: "dir",
    kind: "string",
    group: "create",
    valueHint: "DIR",
    description: "With --create: directory to create (default: the name, or webfw-app)",
  },
  {
    name: "template",
    kind: "enum",
    group: "create",
    options: TEMPLATES,
    valueHint: "NAME",
    description: "With --create: plain, sqlite (bun:sqlite) or postgres (Bun.sql)",
  },
  {
    name: "docker",
    kind: "boolean",
    group: "create",
    negatable: true,
    description: "With --create: add (or with --no-docker, skip) a Dockerfile",
  },
  {
    name: "yes",
    kind: "boolean",
    group: "create",
    aliases: ["y"],
    description: "With --create: ask nothing, use defaults for missing options",
  },
  {
    name: "webfw-spec",
    kind: "string",
    group: "create",
    valueHint: "SPEC",
    description: "With --create: version spec of the webfw dependency (default: ^<this version>)",
  },
  {
    name: "compile-native-path",
    kind: "string",
    group: "native",
    aliases: ["compile-rust-path"],
    valueHint: "PATH",
    description: "Compile the .c/.rs/.zig files in PATH into the native cache (with --dev: on every change)",
  },
  {
    name: "create-native-file",
    kind: "string",
    group: "native",
    aliases: ["create-rust-file"],
    valueHint: "NAME",
    description: "Write NAME.c (or NAME.rs, NAME.zig) with one exported function, plus NAME.ts binding it",
  },
];

const BY_NAME = new Map<string, FlagDef>();
for (const def of FLAG_DEFS) {
  BY_NAME.set(def.name, def);
  for (const alias of def.aliases ?? []) BY_NAME.set(alias, def);
}

export function findFlag(name: string): FlagDef | undefined {
  return BY_NAME.get(name);
}

/** Every long name and alias, for "did you mean". */
export function flagNames(): IterableIterator<string> {
  return BY_NAME.keys();
}
