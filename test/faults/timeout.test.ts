/**
 * A handler that hangs: the app option `timeoutMs` and the route option
 * `timeoutMs` answer 503 once the time is up, through the app's after
 * middlewares and headers; the server keeps serving; no option, no timer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ServerHandle, Webfw } from "../../src/index.ts";
import { Results, startQuiet } from "../security/helpers.ts";
import { rawGet } from "../security/raw-client.ts";

const results = new Results("faults-timeout");
afterAll(() => results.write());

const never = () => new Promise<never>(() => {});

function hangingApp(options: ConstructorParameters<typeof Webfw>[1]) {
  const app = new Webfw(import.meta.path, options);
  app.get("/hang", () => never());
  app.get("/slow/:ms", async ({ pathParams }) => {
    await Bun.sleep(Number(pathParams.ms));
    return "slow done";
  });
  app.get("/fast", () => "fast");
  app.get("/own", () => never(), { timeoutMs: 50 });
  app.get(
    "/unlimited",
    async () => {
      await Bun.sleep(300);
      return "took its time";
    },
    { timeoutMs: 0 },
  );
  app.post("/hang-body", async (request) => {
    request.json();
    return never();
  });
  return app;
}

describe("timeoutMs", () => {
  let server: ServerHandle;
  const app = hangingApp({ timeoutMs: 150 });
  app.addResponseHeader("x-app", "yes");
  app.afterRequest((response) => {
    response.headers.set("x-after", String(response.statusCode));
  });
  beforeAll(async () => {
    server = await startQuiet(app);
  });
  afterAll(() => server.stop(true));

  test("a handler that never answers gets 503 after the timeout, with the app's headers", async () => {
    const started = performance.now();
    const response = await fetch(`${server.url}/hang`);
    expect(response.status).toBe(503);
    expect(await response.text()).toBe("Service Unavailable: the request timed out");
    expect(response.headers.get("x-app")).toBe("yes");
    expect(response.headers.get("x-after")).toBe("503");
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    results.add({
      group: "hung handlers",
      input: "handler that never resolves, timeoutMs 150",
      outcome: "503 after 150 ms, with the app's after-middlewares and headers",
      survived: true,
    });
  });

  test("a handler that answers in time is untouched", async () => {
    const response = await fetch(`${server.url}/slow/20`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("slow done");
  });

  test("the route option wins: a shorter limit, or 0 for none", async () => {
    const own = await fetch(`${server.url}/own`);
    expect(own.status).toBe(503);
    const unlimited = await fetch(`${server.url}/unlimited`);
    expect(unlimited.status).toBe(200);
    expect(await unlimited.text()).toBe("took its time");
    results.add({
      group: "hung handlers",
      input: "route option timeoutMs 50 / 0 (none) under an app limit of 150",
      outcome: "503 at 50 ms / served after 300 ms",
      survived: true,
    });
  });

  test("a route with a body times out the same way", async () => {
    const response = await fetch(`${server.url}/hang-body`, { method: "POST", body: "{}" });
    expect(response.status).toBe(503);
  });

  test("many hung requests at once: each gets 503 and the server keeps serving", async () => {
    const hung = await Promise.all(Array.from({ length: 50 }, () => fetch(`${server.url}/hang`)));
    expect(hung.map((r) => r.status)).toEqual(Array(50).fill(503));
    const after = await rawGet(server.port, "/fast");
    expect(after.status).toBe(200);
    expect(after.body).toBe("fast");
    results.add({
      group: "hung handlers",
      input: "50 hung requests at once",
      outcome: "50 × 503; the next request 200",
      survived: true,
    });
  });

  test("in-process client too", async () => {
    const response = await app.request("/hang");
    expect(response.status).toBe(503);
  });
});

describe("without a timeout", () => {
  test("a slow handler is never cut (no default limit)", async () => {
    const app = hangingApp({});
    const response = await app.request("/slow/400");
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("slow done");
  });
});

describe("bad timeout values are refused at construction or start", () => {
  test("timeoutMs must be a non-negative finite number", () => {
    for (const value of [-1, Number.NaN, Number.POSITIVE_INFINITY, "100" as unknown as number]) {
      expect(() => new Webfw(import.meta.path, { timeoutMs: value })).toThrow(/timeoutMs/);
    }
  });

  test("a route's timeoutMs is checked when the app is built", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/x", () => "x", { timeoutMs: -5 });
    await expect(app.build()).rejects.toThrow(/timeoutMs/);
  });
});
