import { describe, expect, test } from "bun:test";
import { Webfw } from "../../src/index.ts";
import { httpClient } from "../helpers/clients.ts";

describe("const routes", () => {
  test("computed once at start, served identically", async () => {
    let calls = 0;
    const app = new Webfw(import.meta.path);
    app.get(
      "/health",
      () => {
        calls++;
        return { status: "ok", call: calls };
      },
      { const: true },
    );
    app.addResponseHeader("x-app", "webfw");
    const client = await httpClient(app);
    try {
      expect(calls).toBe(1);
      for (let i = 0; i < 5; i++) {
        const response = await client.fetch("/health");
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("application/json;charset=utf-8");
        expect(response.headers.get("x-app")).toBe("webfw");
        expect(await response.json()).toEqual({ status: "ok", call: 1 });
      }
      const head = await client.fetch("/health", { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(calls).toBe(1);
    } finally {
      await client.close();
    }
  });

  test("with middlewares: computed once, the middlewares still run per request", async () => {
    let calls = 0;
    let seen = 0;
    const app = new Webfw(import.meta.path);
    app.beforeRequest(() => {
      seen++;
    });
    app.get("/c", () => `value ${++calls}`, { const: true });
    const client = await httpClient(app);
    try {
      expect(await (await client.fetch("/c")).text()).toBe("value 1");
      expect(await (await client.fetch("/c")).text()).toBe("value 1");
      expect(calls).toBe(1);
      expect(seen).toBe(2);
    } finally {
      await client.close();
    }
  });

  test("const handler errors surface at start", async () => {
    const app = new Webfw(import.meta.path);
    app.get(
      "/bad",
      () => {
        throw new Error("cannot compute");
      },
      { const: true },
    );
    await expect(app.start({ port: 0 })).rejects.toThrow("cannot compute");
  });
});
