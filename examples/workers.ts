/**
 * Offloading CPU-bound handlers to Workers (docs/workers.md).
 *
 *   bun examples/workers.ts --workers 2      # http://127.0.0.1:8080
 *
 * `/hash` and `/report` ask for the pool with `offload: true`; `/health` and
 * `/visits` stay on the main thread (the visit counter is module state: on a
 * Worker each thread would count on its own, which is why offload is opt-in).
 */
import { createHash } from "node:crypto";
import { isMainThread } from "node:worker_threads";
import { sse, t, Webfw } from "../src/index.ts";

const app = new Webfw(import.meta.path);

/** A live object given by dependency injection: each Worker makes its own when it imports this file. */
class Hasher {
  constructor(readonly algorithm: string) {}
  digest(text: string, rounds: number): string {
    let value = text;
    for (let i = 0; i < rounds; i++) value = createHash(this.algorithm).update(value).digest("hex");
    return value;
  }
}
app.injectGlobal({ hasher: new Hasher("sha256") });

// Data only in request.state: it is copied to the Worker and back.
app.beforeRequest((request) => {
  request.state.requestedAt = Date.now();
});

let visits = 0;
app.get("/visits", () => ({ visits: ++visits }));
app.get("/health", () => "ok");

app.get(
  "/hash",
  ({ args, globalDependencies, state }) => {
    const hasher = globalDependencies.hasher as Hasher;
    return {
      digest: hasher.digest(args.text, args.rounds),
      onWorker: !isMainThread,
      requestedAt: state.requestedAt,
    };
  },
  { args: { text: t.str(), rounds: t.int().default(20_000) }, offload: true, timeoutMs: 5_000 },
);

// A streamed answer from a Worker: events reach the client as they are produced.
app.get(
  "/report",
  ({ args }) =>
    sse(
      (async function* () {
        for (let step = 1; step <= args.steps; step++) {
          yield { event: "progress", data: { step, of: args.steps, onWorker: !isMainThread } };
          await Bun.sleep(50);
        }
      })(),
    ),
  { args: { steps: t.int().default(3) }, offload: true },
);

if (import.meta.main) {
  await app.start(); // logs `listening on <url>` (docs/cli.md, "The startup line")
}

export default app;
