import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Webfw } from "../../src/index.ts";
import { CLIENTS, type Client } from "../helpers/clients.ts";

function headersApp(): Webfw {
  const app = new Webfw(import.meta.path);
  app.addResponseHeader("x-frame-options", "DENY");
  app.addResponseHeader("x-multi", "one");
  app.addResponseHeader("x-multi", "two");
  app.setResponseHeader("server", "webfw");
  app.setResponseHeader("cache-control", "no-store");
  app.excludeResponseHeadersFor(["/raw", "/raw-param/:id"]);
  app.addRequestHeader("x-added", "by-app");
  app.setRequestHeader("x-forced", "app-value");
  app.get("/", () => "home");
  app.get("/own-cache", () => new Response("own", { headers: { "cache-control": "max-age=60" } }));
  app.get("/raw", () => "no global headers");
  app.get("/raw-param/:id", () => "no global headers either");
  app.get("/echo", ({ headers }) => ({
    added: headers.get("x-added"),
    forced: headers.get("x-forced"),
    frame: headers.get("x-frame-options"),
  }));
  app.get("/boom", () => {
    throw new Error("x");
  });
  return app;
}

for (const [kind, makeClient] of CLIENTS) {
  describe(`header configuration (${kind})`, () => {
    let client: Client;
    beforeAll(async () => {
      const { logger } = await import("../../src/log/logger.ts");
      logger.setSink(() => {});
      client = await makeClient(headersApp());
    });
    afterAll(() => client.close());

    test("add appends, set replaces", async () => {
      const response = await client.fetch("/");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("x-multi")).toBe("one, two");
      expect(response.headers.get("server")).toBe("webfw");
      const own = await client.fetch("/own-cache");
      expect(own.headers.get("cache-control")).toBe("no-store");
    });

    test("global response headers on 404, 405 and 500", async () => {
      for (const [path, method, status] of [
        ["/missing", "GET", 404],
        ["/", "DELETE", 405],
        ["/boom", "GET", 500],
      ] as const) {
        const response = await client.fetch(path, { method });
        expect(response.status).toBe(status);
        expect(response.headers.get("x-frame-options")).toBe("DENY");
      }
    });

    test("excluded paths get none of them", async () => {
      for (const path of ["/raw", "/raw/", "/raw-param/5"]) {
        const response = await client.fetch(path);
        expect(response.status).toBe(200);
        expect(response.headers.get("x-frame-options")).toBeNull();
        expect(response.headers.get("server")).not.toBe("webfw");
      }
    });

    test("request headers: add appends, set replaces the client's value; response headers never leak in", async () => {
      const response = await client.fetch("/echo", {
        headers: { "x-added": "client", "x-forced": "client" },
      });
      expect(await response.json()).toEqual({ added: "client, by-app", forced: "app-value", frame: null });
      const bare = await client.fetch("/echo");
      expect(await bare.json()).toEqual({ added: "by-app", forced: "app-value", frame: null });
    });
  });
}

describe("header validation", () => {
  test("CR/LF in configured headers is refused at configuration time", () => {
    const app = new Webfw(import.meta.path);
    expect(() => app.addResponseHeader("x-a", "v\r\nSet-Cookie: evil=1")).toThrow();
    expect(() => app.setResponseHeader("bad name", "v")).toThrow();
    expect(() => app.addRequestHeader("x-a", "v\nx")).toThrow();
  });
});
