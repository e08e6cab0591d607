/**
 * When tracing and the OpenTelemetry SDK are on (docs/observability.md):
 *
 * - `new Webfw(path, { tracing: true })`: every request gets a server span
 *   through `@opentelemetry/api`. Recorded by whatever SDK the application
 *   registered itself; with none, the API's no-op (the bench row "no-op tracing").
 * - `--otel`, or `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
 *   set: tracing on, and webfw starts the SDK with the OTLP/HTTP exporter in
 *   every process and handler Worker.
 * - `OTEL_SDK_DISABLED=true` (the specification's switch) keeps webfw's SDK off;
 *   spans still go through the API (to an SDK the application registered, if any).
 */

type Env = Record<string, string | undefined>;

/** Set in the environment of the handler Workers of a process whose SDK is on, so that they start theirs. */
export const OTEL_WORKER_ENV = "WEBFW_OTEL";

export function sdkDisabledByEnv(env: Env = process.env): boolean {
  return (env.OTEL_SDK_DISABLED ?? "").trim().toLowerCase() === "true";
}

/** Whether this process should start webfw's OpenTelemetry SDK. */
export function otelSdkRequested(flag: boolean, env: Env = process.env): boolean {
  if (sdkDisabledByEnv(env)) return false;
  if (flag || env[OTEL_WORKER_ENV] === "1") return true;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * `service.name` unless `OTEL_SERVICE_NAME` says otherwise: the app's main file without its
 * extension (`api.ts` → `api`; a compiled binary's name), as peers use the script name.
 */
export function defaultServiceName(mainFile: string): string {
  const base = mainFile.split(/[\\/]/).pop() ?? "";
  const name = base.replace(/\.[cm]?[jt]sx?$/, "");
  return name === "" ? "webfw" : name;
}
