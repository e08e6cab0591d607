/**
 * What WebSocket message schemas cost (docs/websockets.md, "Message schemas"):
 * `bun bench/ws-schemas.ts` (optionally `ROUNDS=7 MESSAGES=20000 IN_FLIGHT=16`).
 *
 * One webfw server (a child process, so client and server do not share a
 * thread) with three JSON echo routes that differ only in their declaration:
 * no schemas (`receiveJson`/`sendJson` as before), `t.object` specs, and zod
 * objects, each for both directions. One client connection per round sends
 * MESSAGES small JSON messages, IN_FLIGHT at a time, and waits for every
 * answer. Rounds alternate between the routes; prints messages per second,
 * median and min–max, and each ratio to the route without schemas.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { portOf } from "./lib/child-app.ts";

const ROUNDS = Number(process.env.ROUNDS ?? "7");
const MESSAGES = Number(process.env.MESSAGES ?? "20000");
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? "16");
const ROOT = join(import.meta.dir, "..");
const dir = mkdtempSync(join(tmpdir(), "webfw-ws-schemas-"));
const appFile = join(dir, "app.ts");
writeFileSync(
  appFile,
  `import { z } from "${ROOT}/node_modules/zod/index.js";
import { t, Webfw } from "${ROOT}/src/index.ts";
const app = new Webfw(import.meta.path, { openapi: false });
const echo = async (ws: { receiveJson(): Promise<unknown>; sendJson(v: unknown): Promise<void> }) => {
  for (;;) {
    const m = (await ws.receiveJson()) as { n: number; text: string };
    await ws.sendJson({ n: m.n, text: m.text });
  }
};
app.websocket("/none", echo);
app.websocket("/t", echo).messages({
  client: t.object({ n: t.int(), text: t.str() }),
  server: t.object({ n: t.int(), text: t.str() }),
});
app.websocket("/zod", echo).messages({
  client: z.object({ n: z.number().int(), text: z.string() }),
  server: z.object({ n: z.number().int(), text: z.string() }),
});
const server = await app.start({ port: 0, host: "127.0.0.1", handleSignals: false, accessLog: false });
console.log("port " + server.port);`,
);

const proc = Bun.spawn([process.execPath, appFile], { stdout: "pipe", stderr: "inherit" });
const port = await portOf(proc);

/** Messages per second through one connection to `path`. */
async function round(path: string): Promise<number> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let sent = 0;
  let answered = 0;
  const { promise, resolve } = Promise.withResolvers<void>();
  const send = () => ws.send(JSON.stringify({ n: sent++, text: "hello, schemas" }));
  ws.onmessage = () => {
    answered++;
    if (answered === MESSAGES) resolve();
    else if (sent < MESSAGES) send();
  };
  const started = performance.now();
  for (let i = 0; i < IN_FLIGHT; i++) send();
  await promise;
  const seconds = (performance.now() - started) / 1000;
  ws.close();
  return MESSAGES / seconds;
}

const routes = { "no schemas": "/none", "t.object both ways": "/t", "zod both ways": "/zod" };
const results: Record<string, number[]> = Object.fromEntries(Object.keys(routes).map((name) => [name, []]));
try {
  for (const path of Object.values(routes)) await round(path); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, path] of Object.entries(routes)) results[name]?.push(await round(path));
  }
} finally {
  proc.kill();
  rmSync(dir, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const base = median(results["no schemas"] as number[]);
console.log(`${ROUNDS} alternating rounds of ${MESSAGES} JSON messages, ${IN_FLIGHT} in flight\n`);
console.log("| route | messages/s, median (min–max) | × no schemas |");
console.log("|---|--:|--:|");
for (const [name, xs] of Object.entries(results)) {
  const spread = `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
  console.log(`| ${name} | ${spread} | ${(median(xs) / base).toFixed(2)} |`);
}
