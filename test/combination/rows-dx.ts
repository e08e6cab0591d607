/**
 * Combination rows of issue 31 (see the header of table.ts for the shape): `redirect()`, whose
 * answer has no body and no content type, behind every layer and in every run mode.
 */
import { expect } from "bun:test";
import { redirect } from "webfw";
import { type Feature, featurePath, httpExchange } from "./table.ts";

export const DX_ROWS: Feature[] = [
  {
    name: "redirect",
    register(app, ctx) {
      app.get(
        featurePath("redirect"),
        (request) =>
          ctx.guard(request)?.then(() => redirect("/never")) ??
          redirect(`/f/redirect/there?user=${String(request.identity?.claims.user ?? "anonymous")}`, 303),
        ctx.routeOptions,
      );
    },
    exchange: (base, init) => httpExchange(base, featurePath("redirect"), init),
    verify(result) {
      expect(result.status).toBe(303);
      expect(result.headers.get("location")).toBe("/f/redirect/there?user=ada");
      expect(result.headers.get("content-type")).toBeNull();
      expect(result.body).toBe("");
    },
  },
];
