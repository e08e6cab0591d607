import { afterEach, describe, expect, test } from "bun:test";
import * as statusCodes from "../../src/http/status-codes.ts";
import { Webfw } from "../../src/index.ts";
import { resolveStart } from "../../src/launch/start-options.ts";

const saved = { host: process.env.WEBFW_HOST, port: process.env.WEBFW_PORT };
afterEach(() => {
  for (const [key, value] of [
    ["WEBFW_HOST", saved.host],
    ["WEBFW_PORT", saved.port],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe("start", () => {
  test("port 0 picks a free port; the handle has port, url and stop()", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/", () => "up");
    const server = await app.start({ port: 0 });
    try {
      expect(server.port).toBeGreaterThan(0);
      expect(server.hostname).toBe("127.0.0.1");
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      expect(await (await fetch(server.url)).text()).toBe("up");
    } finally {
      await server.stop();
    }
    expect(fetch(server.url)).rejects.toThrow();
  });

  test("defaults: host 127.0.0.1, port 8080", () => {
    delete process.env.WEBFW_HOST;
    delete process.env.WEBFW_PORT;
    const resolved = resolveStart(new Webfw(import.meta.path), {});
    expect([resolved.host, resolved.port]).toEqual(["127.0.0.1", 8080]);
  });

  test("WEBFW_HOST / WEBFW_PORT; explicit options win", async () => {
    process.env.WEBFW_HOST = "127.0.0.1";
    process.env.WEBFW_PORT = "0";
    const app = new Webfw(import.meta.path);
    app.get("/", () => "env");
    const server = await app.start();
    try {
      expect(server.port).toBeGreaterThan(0);
      expect(await (await fetch(server.url)).text()).toBe("env");
    } finally {
      await server.stop();
    }
    process.env.WEBFW_PORT = "9";
    expect(resolveStart(app, { port: 1234 }).port).toBe(1234);
    process.env.WEBFW_PORT = "not-a-port";
    expect(() => resolveStart(app, {})).toThrow("invalid WEBFW_PORT");
  });

  test("startup runs before the first request, shutdown on stop()", async () => {
    const events: string[] = [];
    const app = new Webfw(import.meta.path);
    app.startupHandler(async () => {
      await Bun.sleep(20);
      events.push("startup");
    });
    app.shutdownHandler(() => {
      events.push("shutdown");
    });
    app.get("/", () => {
      events.push("request");
      return "ok";
    });
    const server = await app.start({ port: 0 });
    await fetch(server.url);
    await server.stop();
    expect(events).toEqual(["startup", "request", "shutdown"]);
  });

  test("authRequired without authentication is an error at start", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/secret", () => "s", { authRequired: true });
    await expect(app.start({ port: 0 })).rejects.toThrow("authRequired but no authentication is configured");
  });
});

describe("status codes", () => {
  test("HTTP_XXX_NAME constants", () => {
    expect(statusCodes.HTTP_200_OK).toBe(200);
    expect(statusCodes.HTTP_404_NOT_FOUND).toBe(404);
    expect(statusCodes.HTTP_418_IM_A_TEAPOT).toBe(418);
    expect(statusCodes.HTTP_503_SERVICE_UNAVAILABLE).toBe(503);
    expect(Object.keys(statusCodes).length).toBeGreaterThan(60);
  });
});
