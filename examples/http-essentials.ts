/**
 * Authentication and HTTP caching built in: `JwtAuth` (an issuer's JWKS, or a shared secret as
 * here), `BasicAuth` for an operator area, weak ETags with 304s, a route's `Cache-Control`,
 * `If-Match` preconditions (412) for edits, and `Server-Timing` in development.
 * docs/authentication.md, docs/conditional-requests.md, docs/observability.md.
 *
 *   JWT_SECRET=… bun examples/http-essentials.ts --dev --port 8080
 *   curl -i localhost:8080/articles/1                       # ETag: W/"…", Cache-Control, Server-Timing
 *   curl -i -H 'If-None-Match: W/"…"' localhost:8080/articles/1   # 304
 *   curl -i -X PUT -H 'Authorization: Bearer <jwt>' -H 'If-Match: "v1"' -d '{"title":"x"}' localhost:8080/articles/1
 *   curl -i -u ops:ops-password localhost:8080/ops/stats
 */

import { timed } from "../src/entries/observability.ts";
import { BasicAuth, JwtAuth, type Request, SubRouter, t, Webfw } from "../src/index.ts";
import type { ResourceValidators } from "../src/types.ts";

const secret = process.env.JWT_SECRET ?? "development-secret-of-at-least-32-bytes";

// Timings only under --dev (or SERVER_TIMING=1): in production they tell an attacker what takes long (docs/security.md).
const app = new Webfw(import.meta.path, {
  etag: true,
  serverTiming: process.env.SERVER_TIMING === "1" || "dev",
});
app.configureAuthentication(
  new JwtAuth({ secret, algorithms: ["HS256"], issuer: "https://auth.example.com", clockSkewSec: 30 }),
);

const articles = new Map([[1, { id: 1, title: "Hello", version: 1 }]]);
const etagOf = (article: { version: number }) => `"v${article.version}"`;

app.get(
  "/articles/:id",
  async (request) => {
    const article = await timed(request, "db", () => articles.get(request.args.id));
    return article ?? [{ error: "no such article" }, 404];
  },
  { args: { id: t.int() }, cacheControl: "public, max-age=0, must-revalidate" },
);

/** The validators of the article a request names (its typed `id` is parsed after the preconditions, hence the path). */
function currentArticle(request: Request): ResourceValidators | null {
  const article = articles.get(Number(request.pathParams.id));
  return article ? { etag: etagOf(article) } : null;
}

app.put(
  "/articles/:id",
  ({ args, parsedBody, identity }) => {
    const article = articles.get(args.id);
    if (article === undefined) return [{ error: "no such article" }, 404];
    const updated = { ...article, title: parsedBody.title, version: article.version + 1 };
    articles.set(args.id, updated);
    return { ...updated, editor: identity?.claims.sub ?? null };
  },
  {
    args: { id: t.int() },
    body: t.object({ title: t.str().minLength(1) }),
    authRequired: true,
    // The article as it is now: a stale If-Match is 412 before the handler runs.
    preconditions: currentArticle,
  },
);

const ops = new SubRouter(import.meta.path, { prefix: "/ops" });
ops.configureAuthentication(
  new BasicAuth({ users: { ops: process.env.OPS_PASSWORD ?? "ops-password" }, realm: "operations" }),
);
ops.get("/stats", ({ identity }) => ({ articles: articles.size, by: identity?.claims.sub }), {
  authRequired: true,
  etag: false,
  cacheControl: "no-store",
});
app.includeRouter(ops);

if (import.meta.main) {
  const server = await app.start();
  console.log(`listening on ${server.url}`);
}

export default app;
