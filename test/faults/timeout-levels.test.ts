/**
 * One name for a time limit at every level (docs/options.md#time-limits): `timeoutMs` on the app,
 * on a router (`app.router(prefix, { timeoutMs })`, `new SubRouter(file, { prefix, timeoutMs })`)
 * and on a route; the nearest wins, `0` lifts the limit. Over HTTP, and in the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ServerHandle, SubRouter, Webfw } from "../../src/index.ts";
import { startQuiet } from "../security/helpers.ts";

const never = () => new Promise<never>(() => {});
const slow = async () => {
  await Bun.sleep(300);
  return "slow done";
};

function levelsApp(): Webfw {
  const app = new Webfw(import.meta.path, { timeoutMs: 150 });
  app.get("/hang", () => never());
  app.get("/slow", slow);
  // A router made by the app: a longer limit for its routes, inherited by its own routers.
  const reports = app.router("/reports", { timeoutMs: 800 });
  reports.get("/slow", slow);
  reports.get("/hang", () => never());
  reports.get("/quick-hang", () => never(), { timeoutMs: 50 });
  reports.router("/inner").get("/slow", slow);
  // A SubRouter of its own file: `0` lifts the app's limit there.
  const exports = new SubRouter(import.meta.path, { prefix: "/exports", timeoutMs: 0 });
  exports.get("/slow", slow);
  app.includeRouter(exports);
  return app;
}

describe("timeoutMs at the app, router and route level", () => {
  let server: ServerHandle;
  const app = levelsApp();
  beforeAll(async () => {
    server = await startQuiet(app);
  });
  afterAll(() => server.stop(true));

  const get = async (path: string) => {
    const started = performance.now();
    const response = await fetch(`${server.url}${path}`);
    return { status: response.status, text: await response.text(), ms: performance.now() - started };
  };

  test("the app's limit: a slow route of the app gets 503", async () => {
    const answer = await get("/slow");
    expect(answer.status).toBe(503);
    expect(answer.text).toBe("Service Unavailable: the request timed out");
    expect(answer.ms).toBeLessThan(290);
  });

  test("a router's limit replaces the app's for its routes and its routers' routes", async () => {
    expect(await get("/reports/slow")).toMatchObject({ status: 200, text: "slow done" });
    expect(await get("/reports/inner/slow")).toMatchObject({ status: 200, text: "slow done" });
    const hung = await get("/reports/hang");
    expect(hung.status).toBe(503);
    expect(hung.ms).toBeGreaterThanOrEqual(780);
  });

  test("a route's own limit wins over its router's", async () => {
    const hung = await get("/reports/quick-hang");
    expect(hung.status).toBe(503);
    expect(hung.ms).toBeLessThan(700);
  });

  test("timeoutMs: 0 on a SubRouter lifts the app's limit there", async () => {
    expect(await get("/exports/slow")).toMatchObject({ status: 200, text: "slow done" });
  });

  test("OpenAPI documents the 503 only where a limit applies", async () => {
    const spec = (await (await app.request("/openapi.json")).json()) as {
      paths: Record<string, { get: { responses: Record<string, { description: string }> } }>;
    };
    const timed = (path: string) =>
      spec.paths[path]?.get.responses["503"]?.description.includes("did not finish in time") === true;
    expect(timed("/slow")).toBe(true);
    expect(timed("/reports/inner/slow")).toBe(true);
    expect(timed("/exports/slow")).toBe(false);
  });
});

describe("the router's timeoutMs is checked when it is made; the old app option is refused", () => {
  test("a bad router value names the router", () => {
    const app = new Webfw(import.meta.path);
    expect(() => app.router("/r", { timeoutMs: -1 })).toThrow(/timeoutMs of router \/r/);
    expect(() => new SubRouter(import.meta.path, { prefix: "/s", timeoutMs: Number.NaN })).toThrow(
      /timeoutMs of router \/s/,
    );
  });

  test("requestTimeoutMs is refused with the new spelling", () => {
    const old = { requestTimeoutMs: 100 } as ConstructorParameters<typeof Webfw>[1];
    expect(() => new Webfw(import.meta.path, old)).toThrow(
      "new Webfw: the option requestTimeoutMs is now timeoutMs",
    );
  });
});
