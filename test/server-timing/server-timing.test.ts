/**
 * `serverTiming` over a real socket: `total` and `handler` on every answer of a route, `total`
 * on the framework's own answers (404), the application's `timing()`/`timed()` entries, and no
 * header at all when the option is off (or `"dev"` outside development).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { timed, timing } from "../../src/entries/observability.ts";
import { type ServerHandle, Webfw } from "../../src/index.ts";

/** `name;dur=1.2;desc="x"` entries of a Server-Timing value, by name. */
function entries(header: string | null): Map<string, { dur: number; desc?: string }> {
  const out = new Map<string, { dur: number; desc?: string }>();
  for (const part of (header ?? "").split(",")) {
    const [name, ...params] = part.trim().split(";");
    if (!name) continue;
    const dur = Number(params.find((p) => p.startsWith("dur="))?.slice(4));
    const desc = params.find((p) => p.startsWith("desc="))?.slice(6, -1);
    out.set(name, desc === undefined ? { dur } : { dur, desc });
  }
  return out;
}

function timingApp(options: ConstructorParameters<typeof Webfw>[1]): Webfw {
  const app = new Webfw(import.meta.path, options);
  app.get("/work", async (request) => {
    const rows = await timed(request, "db", () => Bun.sleep(20).then(() => 3), "query users");
    timing(request, "cache", 0.5, 'miss "cold"');
    return { rows };
  });
  app.get("/fail", () => {
    throw new Error("boom");
  });
  app.get("/const", () => "constant", { const: true });
  return app;
}

describe("serverTiming: true", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await timingApp({ serverTiming: true }).start({ port: 0, host: "127.0.0.1", accessLog: false });
  });
  afterAll(() => server.stop(true));

  test("total, handler and the app's own entries, with durations that add up", async () => {
    const response = await fetch(`${server.url}/work`);
    expect(await response.json()).toEqual({ rows: 3 });
    const got = entries(response.headers.get("server-timing"));
    expect([...got.keys()]).toEqual(["total", "db", "cache", "handler"]);
    expect(got.get("db")?.dur).toBeGreaterThanOrEqual(19);
    expect(got.get("db")?.desc).toBe("query users");
    expect(got.get("cache")).toEqual({ dur: 0.5, desc: "miss cold" });
    expect(got.get("handler")?.dur).toBeGreaterThanOrEqual(got.get("db")?.dur as number);
    expect(got.get("total")?.dur).toBeGreaterThanOrEqual(got.get("handler")?.dur as number);
  });

  test("errors, 404s and const routes carry it too", async () => {
    const failed = await fetch(`${server.url}/fail`);
    expect(failed.status).toBe(500);
    expect(entries(failed.headers.get("server-timing")).has("handler")).toBe(true);
    const missing = await fetch(`${server.url}/nowhere`);
    expect(missing.status).toBe(404);
    expect([...entries(missing.headers.get("server-timing")).keys()]).toEqual(["total"]);
    const constant = await fetch(`${server.url}/const`);
    expect(await constant.text()).toBe("constant");
    expect(constant.headers.get("server-timing")).toStartWith("total;dur=");
  });

  test("a metric name that is not a token is the app's bug", async () => {
    const app = new Webfw(import.meta.path, { serverTiming: true });
    app.get("/bad", (request) => {
      timing(request, "bad name", 1);
      return "never";
    });
    expect((await app.request("/bad")).status).toBe(500);
  });
});

describe("serverTiming off", () => {
  test("default: no header; timing() and timed() only run the work", async () => {
    const app = timingApp({});
    const response = await app.request("/work");
    expect(await response.json()).toEqual({ rows: 3 });
    expect(response.headers.get("server-timing")).toBeNull();
  });

  test('"dev": only in development builds', async () => {
    const production = await timingApp({ serverTiming: "dev" }).request("/work");
    expect(production.headers.get("server-timing")).toBeNull();
    const development = await timingApp({ serverTiming: "dev", dev: true }).request("/work");
    expect(entries(development.headers.get("server-timing")).has("db")).toBe(true);
  });

  test("a bad value stops the app", () => {
    expect(() => new Webfw(import.meta.path, { serverTiming: "yes" as "dev" })).toThrow(/serverTiming/);
  });
});

describe("serverTiming with tracing on", () => {
  test("timed() runs in a span and is still timed", async () => {
    const app = timingApp({ serverTiming: true, tracing: true });
    const response = await app.request("/work");
    expect(await response.json()).toEqual({ rows: 3 });
    expect(entries(response.headers.get("server-timing")).get("db")?.dur).toBeGreaterThanOrEqual(19);
  });
});
