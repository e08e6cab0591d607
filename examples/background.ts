/**
 * Background tasks (docs/events.md#background-tasks): work left for after the
 * response. The client gets its answer at once; the task runs afterwards, on
 * the Worker when the route is offloaded; a failing task is logged with the
 * request id; stopping the server waits for running tasks.
 *
 *   bun examples/background.ts --workers 2
 *   curl -i -X POST localhost:8080/signup -d '{"email":"ada@example.com"}'   # 201 at once
 *   curl localhost:8080/outbox                                                # the welcome mail, a moment later
 *   curl localhost:8080/export                                                # streamed; its task runs after the last row
 */
import { appendFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";
import { t, Webfw } from "../src/index.ts";

// At most 32 requests' tasks run at once per thread (each Worker too), 500 more wait; past that a
// request's tasks are dropped, logged and counted (docs/events.md#bounds).
const app = new Webfw(import.meta.path, {
  requestId: true,
  background: { maxConcurrent: 32, maxQueued: 500 },
});

/** Stands for a mail service: slow, and sometimes down. */
export const outbox: { to: string; requestId: string }[] = [];
async function sendWelcomeMail(to: string, requestId: string): Promise<void> {
  await Bun.sleep(100);
  if (to.endsWith("@down.example")) throw new Error(`SMTP refused ${to}`);
  outbox.push({ to, requestId });
}

app.post(
  "/signup",
  (request) => {
    const { email } = request.parsedBody;
    // Answer now; mail later. Sync or async functions; a request's tasks run in order.
    request.background(() => sendWelcomeMail(email, request.id));
    request.background(() => console.log(`signed up ${email}`));
    return [{ email, status: "created" }, 201];
  },
  { body: t.object({ email: t.str().minLength(3) }) },
);

app.get("/outbox", () => outbox);

// A streamed answer: its tasks wait for the last chunk (or for the client to leave), so this one
// sees every row counted.
export const exportsDone: { rows: number; requestId: string }[] = [];
app.get("/export", (request) => {
  let rows = 0;
  request.background(() => {
    exportsDone.push({ rows, requestId: request.id });
  });
  return (async function* () {
    for (let row = 1; row <= 3; row++) {
      rows = row;
      yield `row ${row}\n`;
      await Bun.sleep(20);
    }
  })();
});

// Offloaded: the task runs on the same Worker as the handler, after its reply went to the main thread.
// (A Worker has its own module state, so this one reports through a file.)
app.get(
  "/report",
  (request) => {
    const out = process.env.BACKGROUND_REPORT_FILE;
    request.background(async () => {
      await Bun.sleep(50);
      if (out) appendFileSync(out, `${JSON.stringify({ requestId: request.id, onWorker: !isMainThread })}\n`);
    });
    return { queued: true };
  },
  { offload: true },
);

export default app;

if (import.meta.main) await app.start();
