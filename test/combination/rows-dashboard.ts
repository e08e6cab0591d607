/**
 * The development dashboard asked for in production (docs/dashboard.md): the suite's app serves it
 * at `/f/dashboard` with `auth: true`, so its API sits behind the app's authentication and every
 * app-global layer (CORS, sessions, middlewares, header rules, compression, request ids), in every
 * run mode. With --processes 2 each process answers from its own records (docs/dashboard.md).
 */
import { expect } from "bun:test";
import { type Feature, featurePath, httpExchange } from "./table.ts";

// Written out: table.ts imports this file before its own helpers are initialised.
const DASHBOARD_PATH = "/f/dashboard";

export const DASHBOARD_ROWS: Feature[] = [
  {
    name: "dashboard",
    // The dashboard is an app option (test/combination/app.ts): nothing to register here.
    register() {},
    exchange: (base, init) => httpExchange(base, `${DASHBOARD_PATH}/api/routes`, init),
    verify(result) {
      expect(result.status).toBe(200);
      const routes = JSON.parse(result.body) as { method: string; pattern: string }[];
      expect(routes.length).toBeGreaterThan(10);
      expect(
        routes.some((route) => route.pattern === featurePath("secure-headers") && route.method === "GET"),
      ).toBe(true);
    },
    skip: {
      "exception-handler": "the dashboard's API has no ?fail switch (it runs no application code)",
      "request-timeout": "the dashboard's API has no ?slow switch (it runs no application code)",
    },
  },
];
