/**
 * WebSocket echo load generator (the runner pins it to core 1): opens
 * `--connections` sockets, keeps `--window` messages in flight on each, and
 * counts the echoes received during `--duration` seconds after `--warmup`.
 * Prints one JSON line: { messages, seconds, rate, mismatches, totalMessages, totalSeconds }
 * (the totals include the warm-up, to match the server's CPU time measured around the whole run).
 */
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    connections: { type: "string", default: "16" },
    window: { type: "string", default: "4" },
    duration: { type: "string", default: "5" },
    warmup: { type: "string", default: "1" },
    size: { type: "string", default: "32" },
  },
});
if (!values.url) throw new Error("--url is required");
const connections = Number(values.connections);
const window = Number(values.window);
const duration = Number(values.duration);
const warmup = Number(values.warmup);
const payload = "x".repeat(Number(values.size));

let counting = false;
let messages = 0;
let totalMessages = 0;
let mismatches = 0;
const began = performance.now();

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const timer = setTimeout(() => reject(new Error("WebSocket open timed out")), 10_000);
    socket.onopen = () => {
      clearTimeout(timer);
      resolve(socket);
    };
    socket.onerror = () => {
      clearTimeout(timer);
      reject(new Error(`WebSocket to ${url} failed`));
    };
  });
}

const sockets = await Promise.all(Array.from({ length: connections }, () => open(values.url as string)));
for (const socket of sockets) {
  socket.onmessage = (event) => {
    if (event.data !== payload) mismatches++;
    totalMessages++;
    if (counting) messages++;
    socket.send(payload);
  };
  for (let i = 0; i < window; i++) socket.send(payload);
}

await Bun.sleep(warmup * 1000);
counting = true;
const start = performance.now();
await Bun.sleep(duration * 1000);
counting = false;
const seconds = (performance.now() - start) / 1000;
for (const socket of sockets) socket.close();
const totalSeconds = (performance.now() - began) / 1000;
console.log(
  JSON.stringify({ messages, seconds, rate: messages / seconds, mismatches, totalMessages, totalSeconds }),
);
process.exit(0);
