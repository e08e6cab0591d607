/**
 * Response contracts over a real server (docs/responses.md): declared fields
 * only, a wrong type is a 500 plus a log line naming the route and the path
 * (never the value), mode "log" sends the stripped value, mode "off" sends the
 * value as is, and the same on a Worker (`--workers`).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import example from "../../examples/response-contracts.ts";
import { json, Response, type ServerHandle, t, Webfw } from "../../src/index.ts";
import { type LogLevel, logger, stderrSink } from "../../src/log/logger.ts";

const lines: string[] = [];
beforeAll(() => {
  logger.setSink((line: string, _level: LogLevel) => {
    lines.push(line);
  });
});
afterAll(() => logger.setSink(stderrSink));

const contractLines = () => lines.filter((line) => line.includes("declared schema"));

for (const workers of [1, 2]) {
  describe(`examples/response-contracts.ts (workers: ${workers})`, () => {
    let server: ServerHandle;
    beforeAll(async () => {
      server = await example.start({ port: 0, host: "127.0.0.1", workers });
    });
    afterAll(async () => {
      await server?.stop();
    });

    test("a t.object contract drops the password hash and undeclared nested fields", async () => {
      const response = await fetch(`${server.url}/users/1`);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).not.toContain("passwordHash");
      expect(text).not.toContain("argon2");
      expect(JSON.parse(text)).toEqual({ id: 1, name: "Ada", roles: [{ name: "admin" }] });
    });

    test("a zod contract on an offloaded route: zod's own output (unknown keys stripped)", async () => {
      const response = await fetch(`${server.url}/profiles/7`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ id: 7, name: "Ada" });
    });

    test("[body, 201] is checked against the 201 schema", async () => {
      const response = await fetch(`${server.url}/users`, { method: "POST" });
      expect(response.status).toBe(201);
      expect(await response.json()).toEqual({ id: 2, name: "Ada", roles: [{ name: "admin" }] });
    });

    test("a wrong type: 500 problem details, a log line with route and path, not the value", async () => {
      lines.length = 0;
      const response = await fetch(`${server.url}/broken`);
      expect(response.status).toBe(500);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      const body = await response.text();
      expect(body).not.toContain("three");
      expect(body).not.toContain("argon2");
      await Bun.sleep(50);
      const logged = contractLines();
      expect(logged.length).toBe(1);
      expect(logged[0]).toContain("GET /broken");
      expect(logged[0]).toContain("path=id");
      expect(logged[0]).toContain("an integer");
      expect(logged[0]).not.toContain("three");
      expect(logged[0]).not.toContain("argon2");
    });

    test('mode "log": the stripped value is sent and the mismatch logged', async () => {
      lines.length = 0;
      const response = await fetch(`${server.url}/lenient`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toEqual({ id: 4, name: 42, roles: [{ name: "admin" }] });
      await Bun.sleep(50);
      const logged = contractLines();
      expect(logged.length).toBe(1);
      expect(logged[0]).toContain("path=name");
      expect(logged[0]).toContain("mode=log");
    });
  });
}

describe("shapes, modes and what is left alone", () => {
  const row = { id: 1, name: "n", secret: "s" };
  const Row = t.object({ id: t.int(), name: t.str() });
  const app = new Webfw(import.meta.path, { responseCheck: "log" });
  app.get("/list", () => [row, row], { responses: { 200: t.list(Row) } });
  app.get("/async", async () => row, { responses: { "2XX": Row } });
  app.get("/json", () => json(row, 202), { responses: { 202: Row } });
  app.get("/off", () => row, { responses: { 200: Row }, responseCheck: "off" });
  app.get("/fail", () => ({ id: 1 }), { responses: { 200: Row }, responseCheck: "fail" });
  app.get("/date", () => ({ at: new Date(0), extra: 1 }), { responses: { 200: t.object({ at: t.str() }) } });
  app.get("/bounds", () => ({ n: 500 }), {
    responses: { 200: t.object({ n: t.int().max(100) }) },
    responseCheck: "fail",
  });
  app.get("/explicit", () => new Response(200, { "content-type": "application/json" }, JSON.stringify(row)), {
    responses: { 200: Row },
  });
  app.get("/json-schema", () => row, {
    responses: {
      200: { description: "doc only", schema: { type: "object", properties: { id: { type: "integer" } } } },
    },
  });
  const Strict = z.object({ id: z.number(), tags: z.array(z.object({ k: z.string() })) });
  app.get("/zod-log", () => ({ id: "x", tags: [{ k: "a", hidden: 1 }], secret: "s" }), {
    responses: { 200: Strict },
  });
  let server: ServerHandle;
  beforeAll(async () => {
    server = await app.start({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await server?.stop();
  });
  const get = async (path: string) => {
    const response = await fetch(`${server.url}${path}`);
    return { status: response.status, text: await response.text() };
  };

  test("arrays, async handlers, status classes and json() are stripped", async () => {
    expect(JSON.parse((await get("/list")).text)).toEqual([
      { id: 1, name: "n" },
      { id: 1, name: "n" },
    ]);
    expect(JSON.parse((await get("/async")).text)).toEqual({ id: 1, name: "n" });
    const viaJson = await get("/json");
    expect(viaJson.status).toBe(202);
    expect(JSON.parse(viaJson.text)).toEqual({ id: 1, name: "n" });
  });

  test('route mode "off" sends the value as is; the app default is overridden by "fail"', async () => {
    expect(JSON.parse((await get("/off")).text)).toEqual(row);
    expect((await get("/fail")).status).toBe(500);
    expect((await get("/bounds")).status).toBe(500);
  });

  test("a Date is checked as the string JSON makes of it", async () => {
    const answer = await get("/date");
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ at: "1970-01-01T00:00:00.000Z" });
  });

  test("an explicit Response and a plain JSON Schema are not checked", async () => {
    expect(JSON.parse((await get("/explicit")).text)).toEqual(row);
    expect(JSON.parse((await get("/json-schema")).text)).toEqual(row);
  });

  test('a zod schema rejecting in mode "log": stripped by its JSON Schema', async () => {
    lines.length = 0;
    const answer = await get("/zod-log");
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ id: "x", tags: [{ k: "a" }] });
    await Bun.sleep(20);
    expect(contractLines()[0]).toContain("path=id");
  });

  test("an unknown mode fails at construction and at start", async () => {
    // @ts-expect-error: not a mode
    expect(() => new Webfw(import.meta.path, { responseCheck: "strict" })).toThrow(/responseCheck/);
    const bad = new Webfw(import.meta.path);
    // @ts-expect-error: not a mode
    bad.get("/", () => ({}), { responses: { 200: Row }, responseCheck: "yes" });
    await expect(bad.start({ port: 0, host: "127.0.0.1" })).rejects.toThrow(/responseCheck of GET \//);
  });
});

test("a const route that breaks its contract stops the start, naming the route and the path", async () => {
  const app = new Webfw(import.meta.path);
  app.get("/c", () => ({ id: "x" }), { const: true, responses: { 200: t.object({ id: t.int() }) } });
  await expect(app.start({ port: 0, host: "127.0.0.1" })).rejects.toThrow(
    "GET /c: its const answer does not match its declared response schema at 'id' (expected an integer)",
  );
});

describe("the OpenAPI document reads the shorthand", () => {
  test("responses: { 200: schema } documents the schema", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/u", () => ({ id: 1 }), { responses: { 200: t.object({ id: t.int() }) } });
    const doc = (await (await app.request("/openapi.json")).json()) as {
      paths: Record<string, { get: { responses: Record<string, unknown> } }>;
    };
    expect(doc.paths["/u"]?.get.responses["200"]).toEqual({
      description: "OK",
      content: {
        "application/json": {
          schema: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
        },
      },
    });
  });
});
