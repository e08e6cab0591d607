/**
 * A chat server: rooms at `/chat/:room?name=…`, a page at `/`.
 *
 *     bun examples/chat/app.ts                                  # one process
 *     REDIS_URL=redis://127.0.0.1:6379 bun examples/chat/app.ts --port 8081   # several processes,
 *     REDIS_URL=redis://127.0.0.1:6379 bun examples/chat/app.ts --port 8082   # one conversation
 *
 * Then open http://127.0.0.1:8080/ in two browser tabs.
 */
import { join } from "node:path";
import type { WebSocketAdapter } from "../../src/entries/websocket.ts";
import { serveHtml, Webfw } from "../../src/index.ts";

const MAX_TEXT = 2000;

const app = new Webfw(import.meta.path, {
  // Chat lines are short: a client that sends more than 64 KiB at once is closed with 1009.
  websocket: { maxPayloadLength: 64 * 1024 },
});

// With Redis, a message reaches the clients of every process and machine, not only this one's.
const redisUrl = process.env.REDIS_URL;
if (redisUrl) app.configureBroadcast({ redisUrl, channel: process.env.CHAT_CHANNEL ?? "webfw:chat" });

app.injectGlobal({ startedAt: new Date().toISOString() });

app.get("/", () => serveHtml(join(import.meta.dir, "index.html")));
app.get("/health", () => "ok", { const: true });

/** The display name: `?name=`, trimmed to 32 characters, "anonymous" when absent. */
function nameOf(ws: WebSocketAdapter): string {
  const name = ws.queryParams.get("name", "").trim().slice(0, 32);
  return name === "" ? "anonymous" : name;
}

const chat = app.websocket("/chat/:room", async (ws) => {
  const name = nameOf(ws);
  // After the welcome (onConnect's return value, always the first message), tell the room.
  await ws.broadcast(JSON.stringify({ type: "join", name }));
  // Every line a client sends goes to everyone in the room (the sender too, which confirms delivery).
  for await (const message of ws) {
    if (typeof message !== "string") {
      await ws.close(1003, "text messages only");
      return;
    }
    const text = message.trim();
    if (text === "") continue;
    if (text.length > MAX_TEXT) {
      await ws.sendJson({ type: "error", text: `messages are limited to ${MAX_TEXT} characters` });
      continue;
    }
    await ws.broadcast(JSON.stringify({ type: "message", from: name, text, at: Date.now() }));
  }
});

chat.onConnect((ws, { globalDependencies }) => {
  // A returned string is the client's first message.
  return JSON.stringify({
    type: "welcome",
    id: ws.id,
    room: ws.pathParams.room,
    name: nameOf(ws),
    serverStartedAt: globalDependencies.startedAt,
  });
});

chat.onClose(async (ws) => {
  await ws.broadcast(JSON.stringify({ type: "leave", name: nameOf(ws) }));
});

if (import.meta.main) {
  const server = await app.start();
  console.log(`chat listening on ${server.url}`);
}

export default app;
