import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SubRouter, Webfw } from "../../src/index.ts";
import { CLIENTS, type Client } from "../helpers/clients.ts";

function routersApp(): Webfw {
  const app = new Webfw(import.meta.path);
  app.injectGlobal({ db: "main-db", version: 3 });
  app.inject({ scope: "app" });
  app.get("/deps", ({ globalDependencies, routerDependencies }) => ({
    globalDependencies,
    routerDependencies,
  }));

  const api = new SubRouter(import.meta.path, { prefix: "/api" });
  api.inject({ scope: "api", limit: 10 });
  api.get("/deps", ({ globalDependencies, routerDependencies }) => ({
    globalDependencies,
    routerDependencies,
  }));
  api.get("/", () => "api root");

  const v1 = new SubRouter(import.meta.path, { prefix: "/v1/" });
  v1.inject({ scope: "v1" });
  v1.get("/users/:id", ({ pathParams, routerDependencies }) => ({
    id: pathParams.id,
    ...routerDependencies,
  }));
  api.includeRouter(v1);
  v1.get("/late", () => "registered after include");

  app.includeRouter(api);
  return app;
}

for (const [kind, makeClient] of CLIENTS) {
  describe(`sub-routers and dependency injection (${kind})`, () => {
    let client: Client;
    beforeAll(async () => {
      client = await makeClient(routersApp());
    });
    afterAll(() => client.close());

    test("global dependencies reach every route; router dependencies their router's", async () => {
      expect(await (await client.fetch("/deps")).json()).toEqual({
        globalDependencies: { db: "main-db", version: 3 },
        routerDependencies: { scope: "app" },
      });
      expect(await (await client.fetch("/api/deps")).json()).toEqual({
        globalDependencies: { db: "main-db", version: 3 },
        routerDependencies: { scope: "api", limit: 10 },
      });
    });

    test("prefixes nest; nested routers inherit and override their parents' dependencies", async () => {
      expect(await (await client.fetch("/api")).text()).toBe("api root");
      expect(await (await client.fetch("/api/v1/users/5")).json()).toEqual({
        id: "5",
        scope: "v1",
        limit: 10,
      });
      expect(await (await client.fetch("/api/v1/late")).text()).toBe("registered after include");
      expect((await client.fetch("/v1/users/5")).status).toBe(404);
    });
  });
}

describe("router registration rules", () => {
  test("duplicates across routers are caught", () => {
    const app = new Webfw(import.meta.path);
    app.get("/api/x", () => "app");
    const api = new SubRouter(import.meta.path, { prefix: "/api" });
    api.get("/x", () => "router");
    expect(() => app.includeRouter(api)).toThrow("GET /api/x is already registered");
  });

  test("a router is included once", () => {
    const app = new Webfw(import.meta.path);
    const api = new SubRouter(import.meta.path, { prefix: "/api" });
    app.includeRouter(api);
    expect(() => app.includeRouter(api)).toThrow("already included");
  });
});
