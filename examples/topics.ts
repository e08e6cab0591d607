/**
 * Topics: an HTTP handler publishes, WebSocket and SSE clients receive, in
 * every process. `POST /notes` publishes to "notes"; `/live` (WebSocket)
 * subscribes to it in `onConnect`; `GET /feed` streams it as Server-Sent
 * Events. With `REDIS_URL` set, run it twice (or with `--processes 2`) and a
 * note posted to one process reaches the clients of both.
 *
 *   bun examples/topics.ts --port 8080
 *   curl -N localhost:8080/feed &
 *   curl -X POST localhost:8080/notes -H 'content-type: application/json' -d '{"text":"hi"}'
 */
import { sse, t, Webfw } from "../src/index.ts";

const app = new Webfw(import.meta.path);
if (process.env.REDIS_URL)
  app.configureBroadcast({ redisUrl: process.env.REDIS_URL, channel: "webfw:topics-example" });

let nextId = 1;
app.post(
  "/notes",
  ({ parsedBody }) => {
    const note = { id: nextId++, text: parsedBody.text, pid: process.pid };
    app.publish("notes", note);
    return [note, 201];
  },
  // Offloaded under --workers: app.publish from a Worker reaches the same subscribers.
  { body: t.object({ text: t.str().minLength(1) }), offload: true },
);

// Server-Sent Events from a topic; the subscription ends with the client's connection.
app.get("/feed", (request) =>
  sse(
    (async function* () {
      yield { event: "ready", data: String(process.pid) };
      for await (const note of app.subscribe("notes", request.raw.signal))
        yield { event: "note", data: note };
    })(),
  ),
);

// WebSocket clients subscribe to the same topic; a route's own room topic is publishable too.
const live = app.websocket("/live/:room", async (ws) => {
  for await (const message of ws) await ws.broadcast(String(message));
});
live.onConnect((ws) => {
  ws.subscribe("notes");
  return JSON.stringify({ ready: process.pid, room: ws.pathParams.room });
});
app.post(
  "/rooms/:room/announce",
  ({ pathParams, parsedBody }) => {
    // The topic `ws.broadcast()` uses in that room.
    app.publish(live.topic({ room: pathParams.room }), parsedBody.text);
    return null;
  },
  { body: t.object({ text: t.str() }) },
);
app.get("/health", () => "ok");

if (import.meta.main) {
  const server = await app.start();
  console.log(`listening ${server.url} pid=${process.pid}`);
}

export default app;
