/**
 * Combination rows of the rate-limit branch (table.ts spreads them into FEATURES).
 *
 * `rate-limit-sliding`: a route on a SubRouter that has its own CORS pair, under a sliding limit of
 * one request per key. Each exchange sends two requests with a fresh key: the first is served, the
 * second refused with 429, and the 429 carries the same Access-Control-Allow-Origin as the 200
 * (the router's CORS pair, or the app's in the CORS layer), whatever layer or run mode is around.
 */
import { expect } from "bun:test";
import { type Request, SubRouter } from "webfw";
import { RedisStore } from "webfw/rate-limit";
import { type Feature, httpExchange } from "./table.ts";

/** An origin only the row's SubRouter allows (the CORS layer allows table.ts's ORIGIN on the app). */
const ROUTER_ORIGIN = "https://router.combo.example";

export const RATE_LIMIT_ROWS: Feature[] = [
  {
    name: "rate-limit-sliding",
    register(app, ctx) {
      const router = new SubRouter(import.meta.path, { prefix: "/f" });
      router.cors({ origins: [ROUTER_ORIGIN] });
      router.get(
        "/rate-limit-sliding",
        (request) =>
          ctx.guard(request)?.then(() => ({ never: true })) ?? {
            sliding: true,
            user: (request.identity?.claims.user as string | undefined) ?? "anonymous",
          },
        {
          ...ctx.routeOptions,
          rateLimit: {
            limit: 1,
            windowMs: 60_000,
            algorithm: "sliding",
            key: (request: Request) => request.headers.get("x-limit-key"),
            // Two machines (REDIS_URL set) share one count, as a deployment behind a balancer would.
            ...(process.env.REDIS_URL ? { store: new RedisStore({ url: process.env.REDIS_URL }) } : {}),
          },
        },
      );
      app.includeRouter(router);
    },
    async exchange(base, init) {
      const key = crypto.randomUUID();
      const headers = { origin: ROUTER_ORIGIN, ...init.headers, "x-limit-key": key };
      const first = await httpExchange(base, "/f/rate-limit-sliding", { ...init, headers });
      const second = await httpExchange(base, "/f/rate-limit-sliding", { ...init, headers });
      first.headers.set("x-second-status", String(second.status));
      first.headers.set("x-second-retry-after", second.headers.get("retry-after") ?? "");
      first.headers.set("x-second-ratelimit", second.headers.get("ratelimit") ?? "");
      first.headers.set("x-first-acao", first.headers.get("access-control-allow-origin") ?? "");
      first.headers.set("x-second-acao", second.headers.get("access-control-allow-origin") ?? "");
      return first;
    },
    verify(result) {
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ sliding: true, user: "ada" });
      expect(result.headers.get("ratelimit-policy")).toBe('"GET /f/rate-limit-sliding";q=1;w=60');
      // One more is available once this request has faded entirely: the end of the next window.
      expect(result.headers.get("ratelimit")).toMatch(/^"GET \/f\/rate-limit-sliding";r=0;t=\d+$/);
      expect(result.headers.get("x-second-status")).toBe("429");
      expect(Number(result.headers.get("x-second-retry-after"))).toBeGreaterThan(60);
      expect(result.headers.get("x-second-ratelimit")).toMatch(/^"GET \/f\/rate-limit-sliding";r=0;t=\d+$/);
      // The refusal is readable by the same page as the answer: the same CORS header, never none.
      expect(result.headers.get("x-first-acao")).not.toBe("");
      expect(result.headers.get("x-second-acao")).toBe(result.headers.get("x-first-acao"));
    },
  },
];
