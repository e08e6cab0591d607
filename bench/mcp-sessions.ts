/**
 * What an MCP session costs in memory, and what a flood of `initialize` does:
 * `bun bench/mcp-sessions.ts` (optionally `SESSIONS=2000 ROUNDS=3`).
 *
 * One webfw app with one tool, in this process, served on 127.0.0.1. Each round
 * opens SESSIONS never-used sessions (`initialize` only, as a flood would) with
 * `maxSessions` and `maxSessionsPerClient` raised so that none is evicted, and
 * measures the JavaScript heap (after a full GC) and RSS before and after: the
 * difference divided by SESSIONS is the cost of one session (its SDK server,
 * transport, event store and table entries). Then the same flood against the
 * defaults, from one address: how many sessions it holds at most.
 */
import { heapStats } from "bun:jsc";
import { Webfw } from "../src/index.ts";

const SESSIONS = Number(process.env.SESSIONS ?? "2000");
const ROUNDS = Number(process.env.ROUNDS ?? "3");

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
});

async function flood(url: string, count: number): Promise<{ ok: number; refused: number }> {
  let ok = 0;
  let refused = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next++ < count) {
        const answer = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: INITIALIZE,
        });
        await answer.arrayBuffer();
        if (answer.status === 200) ok++;
        else refused++;
      }
    }),
  );
  return { ok, refused };
}

function measure(): { heap: number; rss: number } {
  Bun.gc(true);
  return { heap: heapStats().heapSize, rss: process.memoryUsage().rss };
}

async function serve(config: Parameters<Webfw["mcp"]["configure"]>[0]) {
  const app = new Webfw(import.meta.path, { openapi: false });
  app.mcp.configure(config);
  app.mcp.tool(() => "ok", { name: "ok" });
  const server = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false, accessLog: false });
  const url = `http://127.0.0.1:${server.port}/mcp`;
  await flood(url, 20); // the engine loaded, the first allocations made
  return { url, server };
}

const perSession: { heap: number; rss: number }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const { url, server } = await serve({ maxSessions: SESSIONS * 2, maxSessionsPerClient: SESSIONS * 2 });
  const before = measure();
  const result = await flood(url, SESSIONS);
  const after = measure();
  if (result.ok !== SESSIONS) throw new Error(`only ${result.ok} of ${SESSIONS} sessions opened`);
  perSession.push({ heap: (after.heap - before.heap) / SESSIONS, rss: (after.rss - before.rss) / SESSIONS });
  await server.stop();
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const kib = (bytes: number) => (bytes / 1024).toFixed(1);
const heaps = perSession.map((p) => p.heap);
const rsses = perSession.map((p) => p.rss);
console.log(`| per never-used session (${SESSIONS} sessions, ${ROUNDS} rounds) | median KiB | min–max KiB |`);
console.log("|---|--:|--:|");
console.log(`| JS heap | ${kib(median(heaps))} | ${kib(Math.min(...heaps))}–${kib(Math.max(...heaps))} |`);
console.log(`| RSS | ${kib(median(rsses))} | ${kib(Math.min(...rsses))}–${kib(Math.max(...rsses))} |`);

// The defaults, one flooding address: the sessions it holds are capped by maxSessionsPerClient.
const defaults = new Webfw(import.meta.path, { openapi: false });
defaults.mcp.tool(() => "ok", { name: "ok" });
// Served from a build of our own: its endpoint (src/mcp/endpoint.ts) tells how many sessions it holds.
const built = await defaults.build({ accessLog: false });
const endpoint = built.mounted(defaults.mcpMount)?.endpoint;
if (endpoint === undefined) throw new Error("the app serves no MCP endpoint");
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (request, bun) => built.handle(request, bun),
});
const result = await flood(`http://127.0.0.1:${server.port}/mcp`, SESSIONS);
const engine = await endpoint.loadEngine();
console.log(
  `\ndefaults, ${SESSIONS} initialize from one address: ${result.ok} answered 200, ${result.refused} refused, ${engine.sessionCount} sessions held`,
);
await server.stop(true);
await endpoint.close();
