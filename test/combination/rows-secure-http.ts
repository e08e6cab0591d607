/**
 * Combination rows of secure headers and cross-site request protection (docs/security.md): each
 * behind every layer (CORS, auth, sessions, middlewares, exception handler, timeouts, …) and in
 * every run mode. The suite's app has neither option, so the routes turn them on themselves.
 */
import { expect } from "bun:test";
import { html } from "webfw";
import { type Feature, featurePath, httpExchange } from "./table.ts";

const NONCE = /script-src 'self' 'nonce-([A-Za-z0-9_-]{22})'/;

export const SECURE_HTTP_ROWS: Feature[] = [
  {
    // A route's object turns the headers on for it; the nonce in the page is the one in its CSP.
    name: "secure-headers",
    register(app, ctx) {
      app.get(
        featurePath("secure-headers"),
        (request) =>
          ctx.guard(request)?.then(() => "never") ?? html(`<script nonce="${request.cspNonce}">1</script>`),
        { ...ctx.routeOptions, secureHeaders: {} },
      );
    },
    exchange: (base, init) => httpExchange(base, featurePath("secure-headers"), init),
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.headers.get("x-content-type-options")).toBe("nosniff");
      expect(result.headers.get("x-frame-options")).toBe("SAMEORIGIN");
      const nonce = NONCE.exec(result.headers.get("content-security-policy") ?? "")?.[1];
      expect(nonce).toBeDefined();
      expect(result.body).toBe(`<script nonce="${nonce}">1</script>`);
    },
  },
  {
    // On by default: a same-origin browser POST passes every layer and reaches the handler.
    name: "csrf-same-origin",
    register(app, ctx) {
      app.post(
        featurePath("csrf-same-origin"),
        (request) => ctx.guard(request)?.then(() => "never") ?? `posted ${request.body.length}`,
        ctx.routeOptions,
      );
    },
    exchange: (base, init) =>
      httpExchange(base, featurePath("csrf-same-origin"), init, {
        method: "POST",
        body: "hello",
        headers: { "sec-fetch-site": "same-origin" },
      }),
    verify(result) {
      expect(result.status).toBe(200);
      expect(result.body).toBe("posted 5");
    },
  },
];
