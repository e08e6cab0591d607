import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import type { ServerHandle } from "../../src/index.ts";
import { logger } from "../../src/log/logger.ts";
import app from "../fixtures/workers-app.ts";

describe("worker pool (--workers 2)", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await app.start({ port: 0, workers: 2 });
  });
  afterAll(() => server.stop());
  const get = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);

  test("synchronous handlers run off the main thread, on several Workers", async () => {
    const threads = new Set<number>();
    const replies = await Promise.all(Array.from({ length: 8 }, () => get("/cpu/20").then((r) => r.json())));
    for (const reply of replies) expect(reply).toEqual({ spins: true, main: false });
    for (let i = 0; i < 6; i++) {
      const reply = await Promise.all([get("/thread"), get("/thread")].map((p) => p.then((r) => r.json())));
      for (const r of reply) {
        expect(r.main).toBe(false);
        threads.add(r.thread);
      }
    }
    expect(threads.size).toBe(2);
  });

  test("handlers without offload stay on the main thread", async () => {
    expect(await (await get("/async")).json()).toEqual({ main: true });
    expect(await (await get("/inline")).json()).toEqual({ main: true });
  });

  test("the body, args and JSON cross to the Worker", async () => {
    const response = await get("/echo", { method: "POST", body: JSON.stringify({ a: [1, { b: "c" }] }) });
    expect(await response.json()).toEqual({ body: { a: [1, { b: "c" }] }, main: false });
    expect((await get("/cpu/x")).status).toBe(400);
  });

  test("a text answer sees the path parameters, query, headers, id and address an inline one would", async () => {
    const headers = { "x-probe": "probe: 1", "x-request-id": "req-42" };
    const plain = await get("/text/abc?q=%C3%A9", { headers });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toBe("text/plain;charset=utf-8");
    expect(await plain.text()).toBe("abc|é|probe: 1|req-42|127.0.0.1|GET|false");
    // A line break in a path parameter sends the call as an object: the same answer.
    const broken = await get("/text/a%0Ab", { headers });
    expect(await broken.text()).toBe("a\nb||probe: 1|req-42|127.0.0.1|GET|false");
    // Without a client id the Worker sees the one the main thread chose (a UUIDv7).
    expect((await (await get("/text/x")).text()).split("|")[3]).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("a handler that throws fails its request only", async () => {
    const spy = spyOn(logger, "error").mockImplementation(() => {});
    const failed = await get("/throws");
    spy.mockRestore();
    expect([failed.status, await failed.text()]).toEqual([500, "Internal Server Error"]);
    const teapot = await get("/http-error");
    expect([teapot.status, await teapot.text()]).toEqual([418, "teapot from worker"]);
    expect((await get("/thread")).status).toBe(200);
  });

  test("a synchronous handler past its timeout: 503, and its Worker is replaced", async () => {
    const stuck = await get("/spin-forever");
    expect(stuck.status).toBe(503);
    const after = await Promise.all(Array.from({ length: 6 }, () => get("/cpu/5").then((r) => r.status)));
    expect(after).toEqual([200, 200, 200, 200, 200, 200]);
  });

  test("a Worker that dies fails its request and is replaced", async () => {
    const spy = spyOn(logger, "error").mockImplementation(() => {});
    const died = await get("/die");
    spy.mockRestore();
    expect(died.status).toBe(500);
    await Bun.sleep(300);
    const after = await Promise.all(Array.from({ length: 6 }, () => get("/thread").then((r) => r.status)));
    expect(after).toEqual([200, 200, 200, 200, 200, 200]);
  });
});

describe("worker pool and sessions", () => {
  test("a session changed in a Worker is saved on the main thread", async () => {
    const { Webfw } = await import("../../src/index.ts");
    const sessionApp = (await import("../fixtures/workers-session-app.ts")).default as InstanceType<
      typeof Webfw
    >;
    const server = await sessionApp.start({ port: 0, workers: 2 });
    try {
      const first = await fetch(`${server.url}/count`);
      expect(await first.json()).toEqual({ count: 1, main: false });
      const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0] as string;
      expect(cookie).toStartWith("session=");
      const second = await fetch(`${server.url}/count`, { headers: { cookie } });
      expect(await second.json()).toEqual({ count: 2, main: false });
    } finally {
      await server.stop();
    }
  });
});
