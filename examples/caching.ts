/**
 * Response caching (docs/caching.md): a slow report cached for 10 s and served stale for a minute
 * while one refresh runs, products tagged so that an update drops exactly their answers, a
 * greeting per language, and a per-user page whose key includes the identity. With REDIS_URL the
 * cache lives in Redis: every process and machine shares it, computes a key once between them, and
 * sees every invalidation.
 *
 *   bun examples/caching.ts
 *   REDIS_URL=redis://127.0.0.1:6379 bun examples/caching.ts --processes 2
 *   curl -i localhost:8080/report     # Cache-Status: webfw; fwd=uri-miss; stored   then: webfw; hit; ttl=9, Age: 1
 *   curl -X PUT localhost:8080/products/1 -d '{"name":"lamp"}'   # drops the cached /products/1
 */
import { BasicAuth, type Request, Webfw } from "../src/index.ts";

const app = new Webfw(import.meta.path);
if (process.env.REDIS_URL) app.configureBroadcast({ redisUrl: process.env.REDIS_URL });

const reportMs = Number(process.env.REPORT_MS ?? 300);
// Each process's own copy: a real app reads these from its database.
const products = new Map<string, { name: string }>([
  ["1", { name: "chair" }],
  ["2", { name: "table" }],
]);

app.get(
  "/report",
  async () => {
    // Printed once per computation: behind any number of processes, once per 10 s.
    console.log(`computing /report in ${process.pid}`);
    await Bun.sleep(reportMs);
    return { pid: process.pid, computedAt: new Date().toISOString() };
  },
  { cacheResponses: { ttl: 10_000, staleWhileRevalidate: 60_000, tags: ["reports"] } },
);

app.get(
  "/products/:id",
  (request) => {
    const product = products.get(request.pathParams.id);
    return product
      ? { id: request.pathParams.id, ...product, pid: process.pid }
      : [{ error: "no such product" }, 404];
  },
  {
    cacheResponses: {
      ttl: 60_000,
      tags: (request: Request) => ["products", `product:${request.pathParams.id}`],
    },
  },
);

app.put("/products/:id", async (request) => {
  const { name } = (await request.json()) as { name?: unknown };
  if (typeof name !== "string" || name === "") return [{ error: "name must be a non-empty string" }, 400];
  products.set(request.pathParams.id, { name });
  // Every process and machine: the next GET computes the product again.
  await app.cache.invalidate({ tags: [`product:${request.pathParams.id}`] });
  return { id: request.pathParams.id, name };
});

app.get(
  "/greeting",
  (request) => (request.headers.get("accept-language")?.startsWith("fr") ? "bonjour" : "hello"),
  {
    cacheResponses: { ttl: 60_000, vary: ["accept-language"] },
  },
);

// Answers to credentials are cached only under a key that names whose they are.
app.configureAuthentication(new BasicAuth({ users: { ann: "ann-password", bob: "bob-password" } }));
app.get("/me", (request) => ({ user: request.identity?.claims.sub, pid: process.pid }), {
  authRequired: true,
  cacheResponses: { ttl: 30_000, key: (request: Request) => `me:${request.identity?.claims.sub}` },
});

app.get("/health", () => "ok");

export default app;

if (import.meta.main) {
  const server = await app.start();
  console.log(`listening ${server.url} pid=${process.pid}`);
}
