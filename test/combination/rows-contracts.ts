/**
 * Combination row of response contracts (docs/responses.md): a route whose handler returns a row
 * with a password hash, behind every layer (CORS, after-middlewares, auth, sessions, exception
 * handler, timeouts, …) and in every run mode (offloaded to a Worker with `--workers`): the
 * answer carries only the declared fields.
 */
import { expect } from "bun:test";
import { t } from "webfw";
import { type Feature, featurePath, httpExchange } from "./table.ts";

const Account = t.object({ id: t.int(), name: t.str(), tags: t.list(t.str()) });

export const CONTRACTS_ROWS: Feature[] = [
  {
    name: "response-contract",
    register(app, ctx) {
      app.get(
        featurePath("response-contract"),
        (request) =>
          ctx.guard(request)?.then(() => "never") ?? {
            id: 7,
            name: "combo",
            tags: ["a"],
            passwordHash: "$argon2id$secret",
          },
        { ...ctx.routeOptions, responses: { 200: Account } },
      );
    },
    exchange: (base, init) => httpExchange(base, featurePath("response-contract"), init),
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.body).not.toContain("argon2");
      expect(JSON.parse(result.body)).toEqual({ id: 7, name: "combo", tags: ["a"] });
    },
  },
];
