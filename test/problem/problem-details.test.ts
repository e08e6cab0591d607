/**
 * Problem details over real HTTP (docs/errors.md): every built-in error as
 * application/problem+json, validation issues with their location, HttpError's
 * type/title/detail (also from a Worker), headers kept, nothing of a 500 shown.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import app from "../../examples/problem-details.ts";
import { HttpError, type ServerHandle, Webfw } from "../../src/index.ts";
import { logger, stderrSink } from "../../src/log/logger.ts";

const PROBLEM = "application/problem+json";
let server: ServerHandle;
const logged: string[] = [];
beforeAll(async () => {
  logger.setSink((line) => {
    logged.push(line);
  });
  server = await app.start({ port: 0, workers: 2 });
});
afterAll(async () => {
  await server.stop();
  logger.setSink(stderrSink);
});

type Problem = Record<string, unknown> & { errors?: Record<string, unknown>[] };

async function problem(path: string, init: RequestInit = {}): Promise<{ response: Response; body: Problem }> {
  const response = await fetch(`${server.url}${path}`, init);
  expect(response.headers.get("content-type")).toBe(PROBLEM);
  const body = (await response.json()) as Problem;
  expect(body.status).toBe(response.status);
  // Every problem names the request, so the client can report it.
  expect(body.requestId).toBe(response.headers.get("x-request-id") as string);
  return { response, body };
}

describe("errors: problem (examples/problem-details.ts, --workers 2)", () => {
  test("404 of an unknown path", async () => {
    const { response, body } = await problem("/nowhere?x=1");
    expect(response.status).toBe(404);
    expect(body).toEqual({
      type: "about:blank",
      title: "Not Found",
      status: 404,
      instance: "/nowhere",
      requestId: body.requestId,
    });
  });

  test("405 keeps Allow", async () => {
    const { response, body } = await problem("/account", { method: "DELETE" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(body.title).toBe("Method Not Allowed");
  });

  test("400 of a typed argument names it and where it came from (path, query)", async () => {
    const path = await problem("/items/abc");
    expect(path.response.status).toBe(400);
    expect(path.body.detail).toBe("argument 'id' must be an integer, got 'abc'");
    expect(path.body.errors).toEqual([
      { detail: "argument 'id' must be an integer, got 'abc'", location: "path", name: "id" },
    ]);
    const query = await problem("/items/3?page=x");
    expect(query.response.status).toBe(400);
    expect(query.body.errors).toEqual([
      { detail: "argument 'page' must be an integer, got 'x'", location: "query", name: "page" },
    ]);
    expect((await fetch(`${server.url}/items/3?page=2`).then((r) => r.json())) as unknown).toEqual({
      id: 3,
      page: 2,
    });
  });

  test("422 of a body schema lists every issue with a JSON pointer into the body", async () => {
    const { response, body } = await problem("/orders", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ item: "", quantity: 0 }),
    });
    expect(response.status).toBe(422);
    expect(body.title).toBe("Unprocessable Entity");
    expect(body.errors?.map((issue) => [issue.location, issue.pointer])).toEqual([
      ["body", "#/item"],
      ["body", "#/quantity"],
    ]);
    for (const issue of body.errors ?? []) expect(typeof issue.detail).toBe("string");
    const whole = await problem("/orders", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "[1]",
    });
    expect(whole.body.errors).toEqual([
      { detail: "body must be a JSON object", location: "body", pointer: "#" },
    ]);
  });

  test("malformed input: invalid JSON 400, wrong media type 415 with Accept-Post, too large 413, bad escape 400", async () => {
    const json = await problem("/orders", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"item": ',
    });
    expect(json.response.status).toBe(400);
    expect(json.body.detail).toStartWith("invalid JSON body");
    const media = await problem("/orders", {
      method: "POST",
      headers: { "content-type": "text/csv" },
      body: "a,b",
    });
    expect(media.response.status).toBe(415);
    expect(media.response.headers.get("accept-post")).toContain("application/json");
    const large = await problem("/orders", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ item: "x".repeat(4096), quantity: 1 }),
    });
    expect(large.response.status).toBe(413);
    expect(large.body.title).toBe("Payload Too Large");
    const badEscape = await problem("/items/%E0%A4%A");
    expect(badEscape.response.status).toBe(400);
    expect(badEscape.body.detail).toContain("malformed percent-encoding");
  });

  test("401 keeps WWW-Authenticate", async () => {
    const { response, body } = await problem("/account");
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toStartWith("Bearer");
    expect(body.title).toBe("Unauthorized");
    const ok = await fetch(`${server.url}/account`, { headers: { authorization: "Bearer secret" } });
    expect(await ok.json()).toEqual({ user: "ada" });
  });

  test("HttpError with type, title, detail and extensions", async () => {
    const { response, body } = await problem("/orders/7");
    expect(response.status).toBe(404);
    expect(body).toEqual({
      orderId: "7",
      type: "https://example.com/problems/order-not-found",
      title: "Order not found",
      status: 404,
      detail: "There is no order 7.",
      instance: "/orders/7",
      requestId: body.requestId,
    });
  });

  test("an offloaded handler's HttpError crosses from the Worker whole (members and headers)", async () => {
    const { response, body } = await problem("/quota");
    expect(response.status).toBe(403);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(body.type).toBe("https://example.com/problems/out-of-credit");
    expect(body.title).toBe("Out of credit");
    expect(body.detail).toBe("30 needed, 10 left");
  });

  test("500 shows nothing of the error; the log line has it and the same request id", async () => {
    const { response, body } = await problem("/crash");
    expect(response.status).toBe(500);
    expect(body).toEqual({
      type: "about:blank",
      title: "Internal Server Error",
      status: 500,
      instance: "/crash",
      requestId: body.requestId,
    });
    await Bun.sleep(20);
    expect(
      logged.some((line) => line.includes(`request_id=${body.requestId}`) && line.includes("hunter2")),
    ).toBe(true);
  });

  test("the OpenAPI document describes the error answers as problem+json", async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>
      >;
      components: { schemas: Record<string, { required?: string[] }> };
    };
    const ref = { schema: { $ref: "#/components/schemas/ProblemDetails" } };
    const items = doc.paths["/items/{id}"]?.get?.responses ?? {};
    expect(items["400"]?.content).toEqual({ [PROBLEM]: ref });
    expect(items["500"]?.content).toEqual({ [PROBLEM]: ref });
    const orders = doc.paths["/orders"]?.post?.responses ?? {};
    expect(orders["422"]?.content).toEqual({ [PROBLEM]: ref });
    expect(doc.paths["/account"]?.get?.responses["401"]?.content).toEqual({ [PROBLEM]: ref });
    expect(doc.components.schemas.ProblemDetails?.required).toEqual(["type", "title", "status"]);
  });
});

describe("errors option", () => {
  test("dev mode puts the stack in detail; an exception handler still wins; text stays the default", async () => {
    const dev = new Webfw(import.meta.path, { errors: "problem", dev: true });
    dev.get("/boom", () => {
      throw new Error("kaboom");
    });
    const crashed = await dev.request("/boom");
    expect(((await crashed.json()) as Problem).detail).toContain("Error: kaboom");

    const custom = new Webfw(import.meta.path, { errors: "problem" });
    custom.exception((error) => [{ mine: (error as Error).message }, 418]);
    custom.get("/boom", () => {
      throw new Error("handled");
    });
    const handled = await custom.request("/boom");
    expect(handled.status).toBe(418);
    expect(await handled.json()).toEqual({ mine: "handled" });

    const text = new Webfw(import.meta.path);
    text.get("/x", () => {
      throw new HttpError(409, { title: "Conflict of versions", detail: "version 3 is not 4" });
    });
    const conflict = await text.request("/x");
    expect(conflict.headers.get("content-type")).toBe("text/plain;charset=utf-8");
    expect(await conflict.text()).toBe("version 3 is not 4");
  });

  test("HttpError fields", () => {
    const plain = new HttpError(404, "no such user");
    expect([plain.message, plain.detail, plain.title, plain.type]).toEqual([
      "no such user",
      "no such user",
      undefined,
      undefined,
    ]);
    expect(new HttpError(404).detail).toBeUndefined();
    const titled = new HttpError(409, { title: "Version conflict" });
    expect(titled.message).toBe("Version conflict");
    expect(titled.problemInit()).toEqual({
      title: "Version conflict",
      type: undefined,
      detail: undefined,
      instance: undefined,
      extensions: undefined,
    });
  });

  test("an extension member never replaces a standard one", async () => {
    const app2 = new Webfw(import.meta.path, { errors: "problem" });
    app2.get("/", () => {
      throw new HttpError(400, { detail: "real", extensions: { status: 200, detail: "fake", field: 1 } });
    });
    const body = (await (await app2.request("/")).json()) as Problem;
    expect(body.status).toBe(400);
    expect(body.detail).toBe("real");
    expect(body.field).toBe(1);
  });

  test("an unknown format is refused at construction", () => {
    expect(() => new Webfw(import.meta.path, { errors: "html" as "text" })).toThrow(TypeError);
  });
});
