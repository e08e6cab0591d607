/**
 * How a benchmark server tells the runner it is listening: one JSON line on
 * stdout with the port it got (every server listens on port 0, 127.0.0.1).
 */
export function announce(port: number | undefined): void {
  if (port === undefined || port === 0) throw new Error("server did not report a port");
  console.log(JSON.stringify({ ready: true, port }));
  // A normal exit on SIGTERM, so that `bun --cpu-prof` / `--heap-prof` write their profiles (bench/profile.ts).
  process.once("SIGTERM", () => process.exit(0));
}

/** The scenario this server process serves (bench/lib/scenarios.ts). */
export function scenarioFromEnv(): string {
  const scenario = process.env.BENCH_SCENARIO;
  if (!scenario) throw new Error("BENCH_SCENARIO is not set");
  return scenario;
}

/** The port to listen on: `BENCH_PORT` when the runner chose one (the startup scenario polls it), else 0. */
export function benchPort(): number {
  return Number(process.env.BENCH_PORT ?? "0");
}

export const HELLO = "Hello, World!";
export const POWERED_BY = "benchmark";
