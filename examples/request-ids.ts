/**
 * Request ids (docs/request-ids.md): every answer carries `X-Request-Id`, the
 * access log and error logs name it, and a handler reads it as `request.id`
 * (also on a Worker).
 *
 *   bun examples/request-ids.ts --workers 2
 *   curl -i localhost:8080/orders/7                       # X-Request-Id: 0193…(a UUIDv7)
 *   curl -i -H 'X-Request-Id: trace-42' localhost:8080/   # echoed: X-Request-Id: trace-42
 */
import { isMainThread } from "node:worker_threads";
import { HttpError, Webfw } from "../src/index.ts";

const app = new Webfw(import.meta.path, { requestId: true });

// Middlewares see the id too: here it goes into the request's state for the handler.
app.beforeRequest((request) => {
  request.state.seenBy = `middleware ${request.id}`;
});

app.get("/", ({ id }) => ({ id }));
app.get("/orders/:id", ({ id, pathParams, state }) => ({ order: pathParams.id, requestId: id, state }));
// On a Worker (`--workers 2`): the same id as the main thread gave the request.
app.get("/report", ({ id }) => ({ requestId: id, onWorker: !isMainThread }), { offload: true });
app.get("/missing", () => {
  throw new HttpError(404, "no such order");
});
// The 500's log line carries `request_id=…`; the client reads the same id in the header to report it.
app.get("/crash", () => {
  throw new Error("database password is hunter2");
});

export default app;

if (import.meta.main) await app.start();
