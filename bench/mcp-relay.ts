/**
 * What relaying an MCP session's requests through Redis costs (docs/mcp.md,
 * "Many processes and machines"): `bun bench/mcp-relay.ts` (optionally
 * `ROUNDS=7 CALLS=1000 CONCURRENCY=16`, `SSE=1` for SSE answers). Needs redis-server.
 *
 * Two webfw servers with one MCP tool share a redis-server (two machines on
 * one host). One session is opened on server A; then, alternately, rounds of
 * `tools/call` (JSON answers) are sent straight to A (the session is local)
 * and to B (relayed to A through Redis and back). Each round: CALLS calls one
 * after the other (latency per call), then CALLS calls CONCURRENCY at a time
 * (calls per second). Prints medians with the min–max spread as Markdown.
 * Without `REDIS_URL` the same app relays nothing, the "Redis off" baseline
 * for a request that reaches its owner: it is the `direct` row either way.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCP_HEADERS, openMcpSession, portOf } from "./lib/child-app.ts";

const ROUNDS = Number(process.env.ROUNDS ?? "7");
const CALLS = Number(process.env.CALLS ?? "1000");
const CONCURRENCY = Number(process.env.CONCURRENCY ?? "16");
// SSE=1: every call reports progress first, so each answer is an SSE stream (relayed chunk by chunk).
const SSE = process.env.SSE === "1";
const ROOT = join(import.meta.dir, "..");
const dir = mkdtempSync(join(tmpdir(), "webfw-mcp-relay-"));
const appFile = join(dir, "app.ts");
writeFileSync(
  appFile,
  `import { t, Webfw } from "${ROOT}/src/index.ts";
const app = new Webfw(import.meta.path, { openapi: false });
app.configureBroadcast({ redisUrl: process.env.REDIS_URL as string });
app.get("/", () => "ok");
app.mcp.tool(({ n }) => String(n + 1), { name: "inc", description: "n + 1", args: { n: t.int() } });
app.mcp.tool(async ({ n }, ctx) => { await ctx.progress(1, 2); return String(n + 1); }, { name: "inc_sse", description: "progress, then n + 1", args: { n: t.int() } });
const server = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false, accessLog: false });
console.log("port " + server.port);`,
);

const redisPort = 20_000 + Math.floor(Math.random() * 20_000);
const redis = Bun.spawn(["redis-server", "--port", String(redisPort), "--bind", "127.0.0.1", "--save", ""], {
  stdout: "ignore",
  stderr: "ignore",
});
await Bun.sleep(300);
const env = { ...process.env, REDIS_URL: `redis://127.0.0.1:${redisPort}` };
const servers = [0, 1].map(() => Bun.spawn(["bun", appFile], { env, stdout: "pipe", stderr: "inherit" }));
const [portA, portB] = await Promise.all(servers.map((server) => portOf(server)));

const session = await openMcpSession(`http://127.0.0.1:${portA}/mcp`);
const headers = MCP_HEADERS;

let id = 1;
async function call(port: number): Promise<void> {
  const n = id++;
  const answer = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: "POST",
    headers: { ...headers, "mcp-session-id": session },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: n,
      method: "tools/call",
      params: SSE
        ? { name: "inc_sse", arguments: { n }, _meta: { progressToken: n } }
        : { name: "inc", arguments: { n } },
    }),
  });
  const text = await answer.text();
  // An SSE answer is what the SSE rows measure: the progress notification, then the result.
  if (SSE && !answer.headers.get("content-type")?.startsWith("text/event-stream"))
    throw new Error(`expected an SSE answer, got ${answer.headers.get("content-type")}`);
  if (answer.status !== 200 || !text.includes(`"text":"${n + 1}"`))
    throw new Error(`bad answer ${answer.status} ${text}`);
}

async function round(port: number): Promise<{ latencyUs: number; perSecond: number }> {
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await call(port);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const start = performance.now();
  let left = CALLS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) await call(port);
    }),
  );
  return {
    latencyUs: (times[Math.floor(times.length / 2)] as number) * 1000,
    perSecond: CALLS / ((performance.now() - start) / 1000),
  };
}

const results: Record<string, { latencyUs: number[]; perSecond: number[] }> = {
  "direct (A holds the session)": { latencyUs: [], perSecond: [] },
  "relayed (B → Redis → A → Redis → B)": { latencyUs: [], perSecond: [] },
};
try {
  await round(portA as number); // warm-up, both paths
  await round(portB as number);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, port] of [
      ["direct (A holds the session)", portA],
      ["relayed (B → Redis → A → Redis → B)", portB],
    ] as const) {
      const got = await round(port as number);
      results[name]?.latencyUs.push(got.latencyUs);
      results[name]?.perSecond.push(got.perSecond);
    }
  }
} finally {
  for (const server of servers) server.kill();
  redis.kill();
  rmSync(dir, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const spread = (xs: number[], digits = 0) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
console.log(`${ROUNDS} alternating rounds, ${CALLS} ${SSE ? "SSE" : "JSON"} calls each; median (min–max)\n`);
console.log(`| path | latency per call, µs | calls/s, ${CONCURRENCY} in flight |`);
console.log("|---|--:|--:|");
for (const [name, r] of Object.entries(results)) {
  console.log(`| ${name} | ${spread(r.latencyUs)} | ${spread(r.perSecond)} |`);
}
const direct = results["direct (A holds the session)"] as { latencyUs: number[]; perSecond: number[] };
const relayed = results["relayed (B → Redis → A → Redis → B)"] as {
  latencyUs: number[];
  perSecond: number[];
};
console.log(
  `\nrelayed / direct: latency ${(median(relayed.latencyUs) / median(direct.latencyUs)).toFixed(2)} ×, throughput ${(median(relayed.perSecond) / median(direct.perSecond)).toFixed(2)} ×`,
);
