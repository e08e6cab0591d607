/**
 * What routes-as-tools cost (issue #16), measured, never asserted:
 *
 *   CALLS=2000 REPEAT=5 taskset -c 0 bun bench/mcp-route-tools.ts
 *
 * (Environment variables, not flags: `start()` reads the command line of the program it runs in.)
 *
 * 1. One `tools/call` of a route tool (the route's whole pipeline, in process) against the same
 *    work as a hand-written `app.mcp.tool`, and against a plain HTTP GET of the route, over real
 *    HTTP, sequential calls, variants alternating within each repeat. Per repeat the median
 *    latency; printed: the median of those medians and their spread (min–max).
 * 2. Build time of a 200-route app without MCP, and with every route exposed (`exposeRoutes()`),
 *    median of 20 builds each: an app that uses no MCP runs none of this code per request (the
 *    route dispatchers are the same objects), so its only possible cost is at build time.
 */
import { t, Webfw } from "../src/index.ts";

const CALLS = Number(process.env.CALLS ?? 2000);
const REPEAT = Number(process.env.REPEAT ?? 5);

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const app = new Webfw(import.meta.path);
app.mcp.configure({ stateless: true });
const item = (id: number) => ({ id, name: `item ${id}` });
app.get("/items/:id", ({ args }) => item(args.id), { args: { id: t.int() }, mcp: true });
app.mcp.tool(
  ({ id }) => ({ content: [{ type: "text", text: JSON.stringify(item(id)) }], structuredContent: item(id) }),
  {
    name: "hand_item",
    args: { id: t.int() },
  },
);
const server = await app.start({ port: 0, host: "127.0.0.1", accessLog: false });
const headers = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};
const call = (name: string) => {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: { id: 7 } },
  });
  return async () => {
    const response = await fetch(`${server.url}/mcp`, { method: "POST", headers, body });
    const text = await response.text();
    if (!text.includes("item 7")) throw new Error(`unexpected answer: ${text}`);
  };
};
const variants: [string, () => Promise<void>][] = [
  ["HTTP GET /items/7", async () => void (await (await fetch(`${server.url}/items/7`)).text())],
  ["tools/call hand tool", call("hand_item")],
  ["tools/call route tool", call("get_items_by_id")],
];
const perVariant = new Map<string, number[]>(variants.map(([name]) => [name, []]));
for (const [, run] of variants) for (let i = 0; i < 200; i++) await run(); // warm-up
for (let r = 0; r < REPEAT; r++) {
  const order = [...variants.slice(r % variants.length), ...variants.slice(0, r % variants.length)];
  for (const [name, run] of order) {
    const times: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const started = Bun.nanoseconds();
      await run();
      times.push((Bun.nanoseconds() - started) / 1000);
    }
    perVariant.get(name)?.push(median(times));
  }
}
await server.stop(true);

const base = median(perVariant.get("tools/call hand tool") ?? []);
console.log(`\n## tools/call latency (${CALLS} sequential calls × ${REPEAT} repeats, µs per call)\n`);
console.log("| variant | median | spread (min–max of repeat medians) | × hand tool |");
console.log("|---|--:|--:|--:|");
for (const [name, medians] of perVariant) {
  const m = median(medians);
  console.log(
    `| ${name} | ${m.toFixed(1)} | ${Math.min(...medians).toFixed(1)}–${Math.max(...medians).toFixed(1)} | ${(m / base).toFixed(2)} |`,
  );
}

function bigApp(expose: boolean): Webfw {
  const big = new Webfw(import.meta.path, { openapi: false });
  for (let i = 0; i < 200; i++)
    big.get(`/r${i}/:id`, ({ args }) => ({ id: args.id }), { args: { id: t.int() } });
  if (expose) big.mcp.exposeRoutes();
  return big;
}
const buildTimes = async (expose: boolean) => {
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const candidate = bigApp(expose);
    const started = Bun.nanoseconds();
    await candidate.build();
    times.push((Bun.nanoseconds() - started) / 1e6);
  }
  return times;
};
const without = await buildTimes(false);
const withTools = await buildTimes(true);
console.log("\n## build time of a 200-route app (ms, median of 20, spread)\n");
console.log("| app | median | spread |");
console.log("|---|--:|--:|");
console.log(
  `| no MCP | ${median(without).toFixed(2)} | ${Math.min(...without).toFixed(2)}–${Math.max(...without).toFixed(2)} |`,
);
console.log(
  `| exposeRoutes(): 200 route tools | ${median(withTools).toFixed(2)} | ${Math.min(...withTools).toFixed(2)}–${Math.max(...withTools).toFixed(2)} |`,
);
process.exit(0);
