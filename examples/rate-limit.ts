/**
 * Rate limiting (docs/rate-limiting.md): one limit for the whole app, a
 * stricter sliding one on a route, a route without any, a key of the app's
 * making on a router with its own CORS (its 429 readable by the page);
 * counted in Redis when REDIS_URL is set, so `--processes 2` (or several
 * machines) share one limit.
 *
 *   bun examples/rate-limit.ts                                      # in-memory counters
 *   REDIS_URL=redis://127.0.0.1:6379 bun examples/rate-limit.ts --processes 2
 *   curl -i localhost:8080/      # RateLimit-Policy: "app";q=100;w=60   RateLimit: "app";r=99;t=60
 */

import { RedisStore } from "../src/entries/rate-limit.ts";
import { HttpError, SubRouter, Webfw } from "../src/index.ts";

const app = new Webfw(import.meta.path, { errors: "problem", requestId: true });

const limit = Number(process.env.RATE_LIMIT ?? 100);
const windowMs = Number(process.env.RATE_WINDOW_MS ?? 60_000);
const store = process.env.REDIS_URL ? new RedisStore({ url: process.env.REDIS_URL }) : undefined;

// Every route (and /mcp), per client address. Behind a proxy, name it on the app:
// new Webfw(path, { trustProxy: ["10.0.0.0/8"] }) (docs/client-address.md).
app.rateLimit({ limit, windowMs, store });

app.get("/", () => "hello");
app.get("/pid", () => ({ pid: process.pid }));
// Health checks are never limited.
app.get("/health", () => "ok", { rateLimit: false });
// Stricter on a costly route: its own policy and counters (windowMs and the store come from the app's),
// and a sliding window, so that 3 at the end of one minute and 3 at the start of the next are not 6.
app.post("/login", () => ({ token: "t0k3n" }), {
  rateLimit: { limit: 3, name: "login", algorithm: "sliding" },
});

// An API keyed by its API key; requests without one are refused by the key function itself.
const api = new SubRouter(import.meta.path, { prefix: "/api" });
// A browser page on another origin calls the API: its 429s pass through this CORS pair too.
api.cors({
  origins: [process.env.APP_ORIGIN ?? "https://app.example"],
  exposeHeaders: ["RateLimit", "RateLimit-Policy", "Retry-After"],
});
api.rateLimit({
  limit: 5,
  name: "api",
  key: (request) => {
    const key = request.headers.get("x-api-key");
    if (key === null) throw new HttpError(401, "send X-Api-Key", { "www-authenticate": "ApiKey" });
    return key === "internal" ? null : `key:${key}`; // null: not limited
  },
});
api.get("/items", () => [{ id: 1 }]);
app.includeRouter(api);

// Redis unreachable: the app-wide limit lets requests through (fail open, the default); this one
// answers 503 instead (fail closed), for a route where abuse costs more than an outage.
app.post("/transfer", () => ({ ok: true }), {
  rateLimit: { limit: 10, name: "transfer", onStoreError: "deny" },
});

export default app;

if (import.meta.main) {
  const server = await app.start();
  console.log(`listening ${server.url} pid=${process.pid}`);
}
