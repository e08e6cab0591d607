/**
 * What the development dashboard costs a request (docs/dashboard.md, docs/performance.md):
 * `bun bench/dashboard.ts`. A real server on loopback, `GET /hello/:name`, answered N times by one
 * sequential keep-alive client, for three apps: production (no dashboard), development with the
 * dashboard turned off (`dev: true, dashboard: false`) and development with it on (`dev: true`:
 * the request recorder, spans recorded in memory, the log tap). Each variant runs in its own
 * process (the tracer provider is per process); a figure is the fastest of ROUNDS rounds.
 */
import { Webfw } from "../src/index.ts";

const N = Number(process.env.DASHBOARD_N ?? "5000");
const ROUNDS = Number(process.env.DASHBOARD_ROUNDS ?? "7");
const VARIANTS = ["production", "dev, dashboard off", "dev, dashboard on"] as const;
type Variant = (typeof VARIANTS)[number];

async function measure(variant: Variant): Promise<number> {
  const options =
    variant === "production"
      ? {}
      : variant === "dev, dashboard off"
        ? { dev: true, dashboard: false }
        : { dev: true };
  const app = new Webfw(import.meta.path, { openapi: false, ...options });
  app.get("/hello/:name", ({ pathParams }) => `Hello, ${pathParams.name}!`);
  const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false, handleSignals: false });
  const url = `${server.url}/hello/bench`;
  const round = async () => {
    const start = Bun.nanoseconds();
    for (let i = 0; i < N; i++) await (await fetch(url)).text();
    return (Bun.nanoseconds() - start) / N / 1000;
  };
  await round();
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) times.push(await round());
  await server.stop(true);
  return Math.min(...times);
}

const only = process.argv[2] as Variant | undefined;
if (only !== undefined) {
  console.log(JSON.stringify({ variant: only, usPerRequest: await measure(only) }));
} else {
  const rows: { variant: string; usPerRequest: number }[] = [];
  for (const variant of VARIANTS) {
    const child = Bun.spawnSync([process.execPath, import.meta.path, variant], { stderr: "inherit" });
    rows.push(JSON.parse(child.stdout.toString().trim().split("\n").pop() as string));
  }
  const base = rows[1]?.usPerRequest ?? 0;
  console.log(`GET /hello/:name over loopback, ${N} requests a round, best of ${ROUNDS} rounds`);
  console.log("| variant | µs/request | vs dev, dashboard off |");
  console.log("|---|---|---|");
  for (const row of rows) {
    console.log(
      `| ${row.variant} | ${row.usPerRequest.toFixed(1)} | ${(row.usPerRequest - base >= 0 ? "+" : "") + (row.usPerRequest - base).toFixed(1)} µs |`,
    );
  }
}
