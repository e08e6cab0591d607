/**
 * Combination rows of the `types` branch: a route of a router made by `app.router(prefix, options)`
 * (issue #31), nested under another, behind every layer and run mode. Its dependencies come from
 * the `dependencies` option and the parent's; the path joins both prefixes.
 */
import { expect } from "bun:test";
import { type Feature, featurePath, httpExchange } from "./table.ts";

export const typesRows: Feature[] = [
  {
    name: "app-router",
    register(app, ctx) {
      const outer = app.router("/f", { dependencies: { where: "outer" } });
      const inner = outer.router("/app-router", { dependencies: { tier: "inner" } });
      inner.get(
        "/",
        (request) => {
          const answer = () => ({
            tier: request.routerDependencies.tier,
            user: (request.identity?.claims.user as string | undefined) ?? "anonymous",
          });
          return ctx.guard(request)?.then(answer) ?? answer();
        },
        ctx.routeOptions,
      );
    },
    exchange: (base, init) => httpExchange(base, featurePath("app-router"), init),
    verify(result) {
      expect(result.status).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ tier: "inner", user: "ada" });
    },
  },
];
