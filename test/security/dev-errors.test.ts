/**
 * "The dev error page is never enabled unless --dev": a 500 carries no stack,
 * no message and no file path, and Bun's `development` mode (its HTML error
 * page) is off, whatever NODE_ENV says. With `--dev` (or `dev: true`) the
 * stack is shown, which proves the assertions can fail.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { join } from "node:path";
import { HttpError, type ServerHandle, Webfw } from "../../src/index.ts";
import { logger } from "../../src/log/logger.ts";
import { collect, freePort, testEnv, waitFor } from "../cli/helpers.ts";
import { Results, startQuiet } from "./helpers.ts";

const MARKER = "SECRET-STACK-MARKER";
const FIXTURE = join(import.meta.dir, "fixtures/error-app.ts");
const results = new Results("dev-errors");

function failingApp(dev: boolean): Webfw {
  const app = new Webfw(import.meta.path, { dev });
  app.get("/sync", () => {
    throw new Error(`${MARKER} sync`);
  });
  app.get("/async", async () => {
    await Bun.sleep(1);
    throw new Error(`${MARKER} async`);
  });
  app.get("/not-an-error", () => {
    throw { secret: MARKER };
  });
  app.get("/http-error", () => {
    throw new HttpError(418, "a teapot, said on purpose");
  });
  app.get("/before", () => "never", {});
  app.beforeRequest("/before", () => {
    throw new TypeError(`${MARKER} before`);
  });
  app.get("/after", () => "fine");
  app.afterRequest("/after", () => {
    throw new RangeError(`${MARKER} after`);
  });
  // A fallback that throws escapes the dispatcher and reaches Bun's own error() callback.
  app.fallbacks.push(() => {
    throw new Error(`${MARKER} fallback`);
  });
  return app;
}

const PATHS = ["/sync", "/async", "/not-an-error", "/before", "/after", "/unmatched-path"];

describe("without dev", () => {
  let server: ServerHandle;
  let errorSpy: ReturnType<typeof spyOn>;
  let consoleSpy: ReturnType<typeof spyOn>;
  beforeAll(async () => {
    errorSpy = spyOn(logger, "error").mockImplementation(() => {});
    consoleSpy = spyOn(console, "error").mockImplementation(() => {});
    server = await startQuiet(failingApp(false));
  });
  afterAll(async () => {
    errorSpy.mockRestore();
    consoleSpy.mockRestore();
    await server.stop(true);
  });

  test("Bun's development mode is off", () => {
    expect(server.server.development).toBe(false);
  });

  for (const path of PATHS) {
    test(`${path}: 500 with a bare text body, no stack, no message`, async () => {
      const response = await fetch(`${server.url}${path}`);
      const body = await response.text();
      expect(response.status).toBe(500);
      expect(body).toBe("Internal Server Error");
      expect(response.headers.get("content-type")).toBe("text/plain;charset=utf-8");
      expect(body).not.toContain(MARKER);
      results.add({
        group: "no --dev",
        input: `error thrown in ${path}`,
        outcome: '500 "Internal Server Error", no stack',
      });
    });
  }

  test("the error itself went to the log (so it is not lost)", async () => {
    errorSpy.mockClear();
    consoleSpy.mockClear();
    await fetch(`${server.url}/sync`);
    expect(errorSpy).toHaveBeenCalled();
    expect(
      JSON.stringify(errorSpy.mock.calls[0]?.[1], (_k, v) => (v instanceof Error ? v.message : v)),
    ).toContain(MARKER);
  });

  test("an HttpError keeps its own status and message (that text is meant for the client)", async () => {
    const response = await fetch(`${server.url}/http-error`);
    expect(response.status).toBe(418);
    expect(await response.text()).toBe("a teapot, said on purpose");
  });
});

describe("with dev: true", () => {
  let server: ServerHandle;
  let errorSpy: ReturnType<typeof spyOn>;
  beforeAll(async () => {
    errorSpy = spyOn(logger, "error").mockImplementation(() => {});
    server = await startQuiet(failingApp(true));
  });
  afterAll(async () => {
    errorSpy.mockRestore();
    await server.stop(true);
  });

  test("the stack is shown and Bun's development mode is on", async () => {
    expect(server.server.development).toBe(true);
    const body = await (await fetch(`${server.url}/sync`)).text();
    expect(body).toContain(MARKER);
    expect(body).toContain("dev-errors.test.ts");
    results.add({
      group: "dev: true",
      input: "error thrown in /sync",
      outcome: "500 with the stack (dev only)",
    });
  });
});

describe("as a program", () => {
  async function launch(args: string[], env: Record<string, string | undefined>) {
    const port = freePort();
    const proc = Bun.spawn([process.execPath, FIXTURE, "--port", String(port), ...args], {
      env: testEnv(env),
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = collect(proc.stdout);
    collect(proc.stderr);
    try {
      const line = await waitFor(
        () => out.text().match(/development=(true|false)/)?.[1],
        15_000,
        "the app to listen",
      );
      const body = await (await fetch(`http://127.0.0.1:${port}/boom`)).text();
      return { development: line === "true", body };
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }

  test("NODE_ENV=development does not turn Bun's development mode on", async () => {
    const { development, body } = await launch([], { NODE_ENV: "development" });
    expect(development).toBe(false);
    expect(body).toBe("Internal Server Error");
    results.add({
      group: "no --dev",
      input: "NODE_ENV=development, handler throws",
      outcome: "development=false, no stack",
    });
  }, 30_000);

  test("NODE_ENV unset and production: no stack", async () => {
    for (const NODE_ENV of [undefined, "production"]) {
      const { development, body } = await launch([], { NODE_ENV });
      expect(development).toBe(false);
      expect(body).toBe("Internal Server Error");
    }
  }, 30_000);

  test("--dev shows the stack", async () => {
    const { development, body } = await launch(["--dev"], {});
    expect(development).toBe(true);
    expect(body).toContain(MARKER);
    results.add({ group: "--dev", input: "handler throws", outcome: "development=true, stack shown" });
  }, 30_000);
});

afterAll(() => results.write());
