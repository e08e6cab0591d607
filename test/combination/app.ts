/**
 * The combination suite's app: every row of table.ts on one server, every layer installed.
 * Run as a program (`bun test/combination/app.ts --port N [--workers 2 | --processes 2]`)
 * or compiled (`webfw build test/combination/app.ts`); combination.test.ts does both, against the
 * sources or (COMBINATION_FROM=dist) the built package: the app imports `webfw` by name for that.
 */
import { Webfw } from "webfw";
import { FEATURES, guard, LAYERS, ROUTE_TIMEOUT_MS } from "./table.ts";

// The request-id and problem-details layers are app options (table.ts); compression too, with no size
// threshold so the suite's small bodies are compressed as well.
// Tracing and metrics too (the observability column); the test's OTEL_EXPORTER_OTLP_ENDPOINT starts the SDK.
const app = new Webfw(import.meta.path, {
  tracing: true,
  metrics: true,
  requestId: true,
  errors: "problem",
  compression: { threshold: 0 },
  // The upload-bounds row (rows-uploads-bg.ts) sends one upload over this; the background rows run under a cap.
  uploads: { maxBytesInFlight: 1024 * 1024 },
  background: { maxConcurrent: 8, maxQueued: 100 },
  // Server-Timing on every answer (the server-timing row checks it; the other rows must not mind it).
  serverTiming: true,
  // The suite's clients and balancer connect from loopback: trusted as the proxy (rows-client-address.ts).
  trustProxy: ["127.0.0.1", "::1"],
  // The dashboard row (rows-dashboard.ts): served in production too, behind the app's authentication.
  dashboard: { path: "/f/dashboard", auth: true },
});
// The two-machine run mode (combination.test.ts) shares a Redis: broadcasts, MCP sessions, rate limits.
if (process.env.REDIS_URL) app.configureBroadcast({ redisUrl: process.env.REDIS_URL });
for (const layer of LAYERS) layer.install(app);
for (const feature of FEATURES) {
  feature.register(app, {
    guard,
    dir: import.meta.dir,
    // Offload is opt-in (docs/workers.md): every feature that can run on a Worker asks for it,
    // so the `--workers 2` run mode exercises the pool; inline and processes modes ignore it.
    routeOptions: { authRequired: true, offload: true, timeoutMs: ROUTE_TIMEOUT_MS },
  });
}

// Which webfw this server runs: the sources, or dist/ when the suite runs against the built package
// (COMBINATION_FROM=dist, docs/testing.md); combination.test.ts checks it.
app.get("/combination/served-from", () => {
  try {
    return import.meta.resolve("webfw");
  } catch {
    return "unresolvable (bundled)";
  }
});

export default app;

if (import.meta.main) await app.start();
