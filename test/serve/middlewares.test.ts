import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Request, Response, SubRouter, Webfw } from "../../src/index.ts";
import { CLIENTS, type Client } from "../helpers/clients.ts";

function middlewareApp(log: string[]): Webfw {
  const app = new Webfw(import.meta.path);
  app.beforeRequest((request) => {
    log.push(`global-before ${request.method} ${request.url.path}`);
    request.headers.set("x-seen-by", "global");
    return request;
  });
  app.beforeRequest(async () => {
    await Bun.sleep(1);
    log.push("global-before-async");
  });
  app.beforeRequest("/items/:id", (request) => {
    log.push(`route-before ${request.pathParams.id}`);
  });
  app.afterRequest((response) => {
    log.push("global-after");
    response.headers.set("x-after", "global");
    return response;
  });
  app.afterRequest("/items/:id", async (response, request) => {
    log.push(`route-after ${request.pathParams.id}`);
    response.description = `${response.description} (wrapped)`;
    return response;
  });
  app.get("/items/:id", ({ pathParams, headers }) => {
    log.push("handler");
    return `item ${pathParams.id} seen by ${headers.get("x-seen-by")}`;
  });
  app.post("/items/:id", () => {
    log.push("post-handler");
    return "posted";
  });
  app.beforeRequest("/guarded", (request) => {
    if (request.headers.get("x-key") !== "open") return new Response(403, {}, "blocked by middleware");
    return undefined;
  });
  app.beforeRequest("/guarded", () => {
    log.push("second guard");
  });
  app.get("/guarded", () => {
    log.push("guarded handler");
    return "inside";
  });
  app.beforeRequest("/web-short", () => new globalThis.Response("web short-circuit", { status: 202 }));
  app.get("/web-short", () => "never");
  app.beforeRequest("/replace", (request) => {
    const replaced = new Request(request.raw, { who: "replaced" });
    return replaced;
  });
  app.get("/replace", ({ pathParams }) => pathParams);
  app.afterRequest("/web-after", () => new globalThis.Response("from a web response", { status: 201 }));
  app.get("/web-after", () => "original");
  app.afterRequest("/throws", () => {
    throw new Error("after failed");
  });
  app.get("/throws", () => "x");

  const api = new SubRouter(import.meta.path, { prefix: "/api" });
  api.beforeRequest((request) => {
    log.push(`router-before ${request.url.path}`);
  });
  api.afterRequest((response) => {
    response.headers.set("x-router", "api");
    return response;
  });
  api.get("/ping", () => "pong");
  app.includeRouter(api);
  app.get("/outside", () => "no router middleware");
  return app;
}

for (const [kind, makeClient] of CLIENTS) {
  describe(`middlewares (${kind})`, () => {
    let client: Client;
    const log: string[] = [];
    beforeAll(async () => {
      client = await makeClient(middlewareApp(log));
    });
    afterAll(() => client.close());

    test("order: global then route-scoped, registration order; after likewise", async () => {
      log.length = 0;
      const response = await client.fetch("/items/7");
      expect(await response.text()).toBe("item 7 seen by global (wrapped)");
      expect(response.headers.get("x-after")).toBe("global");
      expect(log).toEqual([
        "global-before GET /items/7",
        "global-before-async",
        "route-before 7",
        "handler",
        "global-after",
        "route-after 7",
      ]);
    });

    test("route-scoped middlewares apply to every method of the path", async () => {
      log.length = 0;
      const response = await client.fetch("/items/8", { method: "POST" });
      expect(await response.text()).toBe("posted (wrapped)");
      expect(log).toContain("route-before 8");
      expect(log).toContain("route-after 8");
    });

    test("a Response from a before middleware skips the rest, the handler and the after middlewares", async () => {
      log.length = 0;
      const response = await client.fetch("/guarded");
      expect(response.status).toBe(403);
      expect(await response.text()).toBe("blocked by middleware");
      expect(response.headers.get("x-after")).toBeNull();
      expect(log).not.toContain("second guard");
      expect(log).not.toContain("guarded handler");
      expect(log).not.toContain("global-after");
      log.length = 0;
      const open = await client.fetch("/guarded", { headers: { "x-key": "open" } });
      expect(await open.text()).toBe("inside");
      expect(log).toContain("second guard");
    });

    test("a Web Response short-circuits too", async () => {
      const response = await client.fetch("/web-short");
      expect([response.status, await response.text()]).toEqual([202, "web short-circuit"]);
    });

    test("a before middleware may replace the request", async () => {
      expect(await (await client.fetch("/replace")).json()).toEqual({ who: "replaced" });
    });

    test("an after middleware may return a Web Response", async () => {
      const response = await client.fetch("/web-after");
      expect([response.status, await response.text()]).toEqual([201, "from a web response"]);
    });

    test("an after middleware that throws gives a 500", async () => {
      const { logger } = await import("../../src/log/logger.ts");
      logger.setSink(() => {});
      const response = await client.fetch("/throws");
      logger.setSink((line) => process.stderr.write(`${line}\n`));
      expect(response.status).toBe(500);
    });

    test("router-scoped middlewares apply to that router's routes only", async () => {
      log.length = 0;
      const ping = await client.fetch("/api/ping");
      expect(await ping.text()).toBe("pong");
      expect(ping.headers.get("x-router")).toBe("api");
      expect(log).toContain("router-before /api/ping");
      log.length = 0;
      const outside = await client.fetch("/outside");
      expect(outside.headers.get("x-router")).toBeNull();
      expect(log.some((line) => line.startsWith("router-before"))).toBe(false);
    });

    test("global middlewares also run on 404 and 405", async () => {
      log.length = 0;
      const missing = await client.fetch("/missing");
      expect(missing.status).toBe(404);
      expect(missing.headers.get("x-after")).toBe("global");
      expect(log[0]).toBe("global-before GET /missing");
      const wrongMethod = await client.fetch("/outside", { method: "PUT" });
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get("x-after")).toBe("global");
    });
  });
}
