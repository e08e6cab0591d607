import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { HttpError, Webfw } from "../../src/index.ts";
import { logger } from "../../src/log/logger.ts";
import { CLIENTS, type Client, httpClient } from "../helpers/clients.ts";

function errorsApp(options: { dev?: boolean } = {}): Webfw {
  const app = new Webfw(import.meta.path, { maxBodySize: 1024, dev: options.dev });
  app.get("/boom", () => {
    throw new Error("secret database password");
  });
  app.get("/async-boom", async () => {
    await Bun.sleep(1);
    throw new TypeError("async secret");
  });
  app.get("/http", () => {
    throw new HttpError(409, "already exists", { "x-reason": "dup" });
  });
  app.get("/http-default", () => {
    throw new HttpError(503);
  });
  app.post("/upload", ({ body }) => `got ${body.length}`);
  return app;
}

for (const [kind, makeClient] of CLIENTS) {
  describe(`error contract (${kind})`, () => {
    let client: Client;
    const errors: unknown[] = [];
    beforeAll(async () => {
      logger.setSink((line) => errors.push(line));
      client = await makeClient(errorsApp());
    });
    afterAll(async () => {
      await client.close();
      logger.setSink((line) => process.stderr.write(`${line}\n`));
    });

    test("a thrown error is a 500 with no detail; the stack goes to the log", async () => {
      for (const path of ["/boom", "/async-boom"]) {
        const response = await client.fetch(path);
        expect(response.status).toBe(500);
        const body = await response.text();
        expect(body).toBe("Internal Server Error");
        expect(body).not.toContain("secret");
      }
      expect(errors.join("\n")).toContain("secret database password");
    });

    test("HttpError gives its status, message and headers", async () => {
      const response = await client.fetch("/http");
      expect([response.status, response.headers.get("x-reason"), await response.text()]).toEqual([
        409,
        "dup",
        "already exists",
      ]);
      const plain = await client.fetch("/http-default");
      expect([plain.status, await plain.text()]).toEqual([503, "Service Unavailable"]);
    });

    test("a body over maxBodySize is a 413", async () => {
      const ok = await client.fetch("/upload", { method: "POST", body: "x".repeat(1024) });
      expect(await ok.text()).toBe("got 1024");
      const big = await client.fetch("/upload", { method: "POST", body: "x".repeat(1025) });
      expect(big.status).toBe(413);
      expect(await big.text()).toBe("Payload Too Large");
    });
  });
}

describe("exception handler", () => {
  test("app.exception(fn) shapes every error, whenever registered", async () => {
    const app = errorsApp();
    const seen: string[] = [];
    app.get("/late", () => {
      throw new RangeError("late");
    });
    app.exception((error, request) => {
      seen.push(`${request.method} ${request.url.path}`);
      const status = error instanceof HttpError ? error.status : 500;
      return [{ error: (error as Error).message, kind: (error as Error).name }, status];
    });
    const client = await httpClient(app);
    try {
      const late = await client.fetch("/late");
      expect(late.status).toBe(500);
      expect(await late.json()).toEqual({ error: "late", kind: "RangeError" });
      const http = await client.fetch("/http");
      expect(http.status).toBe(409);
      expect(await http.json()).toEqual({ error: "already exists", kind: "HttpError" });
      expect(seen).toEqual(["GET /late", "GET /http"]);
    } finally {
      await client.close();
    }
  });

  test("an exception handler that throws falls back to a plain 500", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/x", () => {
      throw new Error("first");
    });
    app.exception(() => {
      throw new Error("second");
    });
    const spy = spyOn(logger, "error").mockImplementation(() => {});
    const response = await app.request("/x");
    spy.mockRestore();
    expect([response.status, await response.text()]).toEqual([500, "Internal Server Error"]);
  });
});

describe("dev mode", () => {
  test("500 shows the stack only with dev", async () => {
    const spy = spyOn(logger, "error").mockImplementation(() => {});
    const dev = await errorsApp({ dev: true }).request("/boom");
    const prod = await errorsApp().request("/boom");
    spy.mockRestore();
    expect(await dev.text()).toContain("secret database password");
    expect(await prod.text()).toBe("Internal Server Error");
  });
});
