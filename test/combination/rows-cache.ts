/**
 * Combination rows of the cache branch (table.ts spreads them into FEATURES).
 *
 * `cache`: a route with a response cache (docs/caching.md) whose key includes the caller's
 * identity (every request of the suite carries credentials; without such a key nothing would be
 * stored). Each exchange asks twice for a fresh resource (a nonce in the query): the first answer
 * is computed and stored, the second is the same body from the cache, with `Age` and the same
 * ETag, while every layer still runs around it (CORS, auth, sessions, after-middlewares, ids). Two
 * machines behind the balancer share the entry through Redis (`configureBroadcast`'s store).
 */
import { expect } from "bun:test";
import type { Request } from "webfw";
import { type Feature, httpExchange } from "./table.ts";

let runs = 0;

export const CACHE_ROWS: Feature[] = [
  {
    name: "cache",
    register(app, ctx) {
      const answer = (request: Request) => ({
        cached: request.queryParams.get("n", ""),
        user: (request.identity?.claims.user as string | undefined) ?? "anonymous",
        run: ++runs,
        pid: process.pid,
      });
      app.get("/f/cache", (request) => ctx.guard(request)?.then(() => ({ never: true })) ?? answer(request), {
        ...ctx.routeOptions,
        cacheResponses: {
          ttl: 60_000,
          key: (request: Request) => `${String(request.identity?.claims.user)}:${request.url.query}`,
        },
      });
    },
    async exchange(base, init) {
      const nonce = crypto.randomUUID();
      const query = [init.query, `n=${nonce}`].filter(Boolean).join("&");
      const first = await httpExchange(base, "/f/cache", { ...init, query });
      const second = await httpExchange(base, "/f/cache", { ...init, query });
      first.headers.set("x-nonce", nonce);
      first.headers.set("x-second-body", second.body);
      first.headers.set("x-second-cache-status", second.headers.get("cache-status") ?? "");
      first.headers.set("x-second-age", second.headers.get("age") ?? "");
      first.headers.set("x-second-etag", second.headers.get("etag") ?? "");
      first.headers.set("x-second-acao", second.headers.get("access-control-allow-origin") ?? "");
      return first;
    },
    verify(result) {
      expect(result.status).toBe(200);
      const body = JSON.parse(result.body) as { cached: string; user: string };
      expect(body.cached).toBe(result.headers.get("x-nonce") as string);
      expect(body.user).toBe("ada");
      expect(result.headers.get("cache-status")).toBe("webfw; fwd=uri-miss; stored");
      expect(result.headers.get("cache-control")).toBe("private, max-age=60");
      // The second answer is the stored one: the same body (the same run, on whichever process).
      expect(result.headers.get("x-second-body")).toBe(result.body);
      expect(result.headers.get("x-second-cache-status")).toStartWith("webfw; hit; ttl=");
      expect(result.headers.get("x-second-age")).toMatch(/^\d+$/);
      expect(result.headers.get("x-second-etag")).toBe(result.headers.get("etag") as string);
      // CORS runs on every request: a hit carries the same Access-Control-Allow-Origin (or none).
      expect(result.headers.get("x-second-acao")).toBe(
        result.headers.get("access-control-allow-origin") ?? "",
      );
    },
  },
];
