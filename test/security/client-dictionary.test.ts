/**
 * Finding 2 of issue #13: a handler that returns client data must never hand
 * the client the response. Echo and reflection routes are sent every key of
 * the dictionary shape (`statusCode`, `description`, `type`, `headers`), over
 * raw sockets, through every way client data reaches a handler (JSON body,
 * nested JSON, `\u` escapes, typed `t.dict`/`t.object` query args, args named
 * like the shape, Standard Schema and `t.object` bodies, form bodies). The
 * answer is always 200 `application/json` with the data as sent; a dictionary
 * the handler builds itself keeps working.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import { type ServerHandle, t, Webfw } from "../../src/index.ts";
import { Results, startQuiet } from "./helpers.ts";
import { rawGet, rawPost } from "./raw-client.ts";

const results = new Results("client-dictionary");
let handle: ServerHandle;
let port: number;

const ATTACK = {
  statusCode: 302,
  description: "<script>alert(document.cookie)</script>",
  type: "html",
  headers: { "set-cookie": "session=attacker", location: "https://evil.example/" },
};

beforeAll(async () => {
  const app = new Webfw(import.meta.path, { openapi: false });
  app.post("/echo", (r) => r.json());
  app.post("/nested", (r) => (r.json() as { inner: unknown }).inner);
  app.post("/items", (r) => (r.json() as unknown[])[0]);
  app.get("/reflect", ({ args }) => args.q, { args: { q: t.dict() } });
  app.get("/reflect-object", ({ args }) => args.q, {
    args: {
      q: t.object({ statusCode: t.int(), description: t.str(), type: t.str(), headers: t.dict() }),
    },
  });
  app.get("/args", ({ args }) => args, { args: { statusCode: t.int(), description: t.str() } });
  app.post("/zod", ({ parsedBody }) => parsedBody, {
    body: z.looseObject({ statusCode: z.number(), description: z.string() }),
  });
  app.post("/t-object", ({ parsedBody }) => parsedBody, {
    body: t.object({ statusCode: t.int(), description: t.str(), type: t.str() }),
  });
  // The spec's dictionary shape, built by the handler: still a response.
  app.get("/own", () => ({ statusCode: 201, description: "<b>made here</b>", type: "html" }));
  app.post("/own-from-client", (r) => ({
    statusCode: 200,
    description: (r.json() as { text: string }).text,
    type: "text",
  }));
  handle = await startQuiet(app);
  port = handle.port;
});

afterAll(async () => {
  await handle.stop(true);
  results.write();
});

/** The client's data came back as JSON, nothing else: no HTML, no cookie, no redirect. */
function expectInertJson(reply: Awaited<ReturnType<typeof rawGet>>, sent: unknown) {
  expect(reply.status).toBe(200);
  expect(reply.headers["content-type"]).toBe("application/json;charset=utf-8");
  expect(reply.headers["set-cookie"]).toBeUndefined();
  expect(reply.headers.location).toBeUndefined();
  expect(JSON.parse(reply.body)).toEqual(sent);
}

const json = "Content-Type: application/json\r\n";

describe("client data sent as a dictionary response stays JSON", () => {
  const shapes: Array<[string, Record<string, unknown>]> = [
    ["every key", ATTACK],
    ["statusCode + description", { statusCode: 500, description: "x" }],
    ["with type html", { statusCode: 200, description: "<script>1</script>", type: "html" }],
    ["with type binary", { statusCode: 200, description: "x", type: "binary" }],
    ["with headers only", { statusCode: 200, description: "x", headers: { "x-injected": "1" } }],
    ["open redirect", { statusCode: 302, description: "", headers: { location: "https://evil.example/" } }],
  ];
  for (const [name, shape] of shapes) {
    test(`POST /echo: ${name}`, async () => {
      const reply = await rawPost(port, "/echo", JSON.stringify(shape), json);
      results.add({
        group: "echo",
        input: name,
        outcome: `${reply.status} ${reply.headers["content-type"]}`,
      });
      expectInertJson(reply, shape);
      expect(reply.headers["x-injected"]).toBeUndefined();
    });
  }

  test("nested and array items", async () => {
    expectInertJson(await rawPost(port, "/nested", JSON.stringify({ inner: ATTACK }), json), ATTACK);
    expectInertJson(await rawPost(port, "/items", JSON.stringify([ATTACK]), json), ATTACK);
  });

  test("keys hidden behind \\u escapes", async () => {
    const body = '{"status\\u0043ode":200,"descr\\u0069ption":"<script>1</script>","type":"html"}';
    expectInertJson(await rawPost(port, "/echo", body, json), {
      statusCode: 200,
      description: "<script>1</script>",
      type: "html",
    });
  });

  test("a t.dict() query argument (reflected from a link)", async () => {
    const q = encodeURIComponent(JSON.stringify(ATTACK));
    expectInertJson(await rawGet(port, `/reflect?q=${q}`), ATTACK);
  });

  test("a t.object() query argument", async () => {
    const q = encodeURIComponent(JSON.stringify(ATTACK));
    expectInertJson(await rawGet(port, `/reflect-object?q=${q}`), ATTACK);
  });

  test("args named like the shape", async () => {
    const reply = await rawGet(port, "/args?statusCode=302&description=%3Cscript%3E");
    expectInertJson(reply, { statusCode: 302, description: "<script>" });
  });

  test("a Standard Schema body", async () => {
    expectInertJson(await rawPost(port, "/zod", JSON.stringify(ATTACK), json), ATTACK);
  });

  test("a t.object body sent as a form", async () => {
    const form = "statusCode=302&description=%3Cscript%3E&type=html";
    const reply = await rawPost(
      port,
      "/t-object",
      form,
      "Content-Type: application/x-www-form-urlencoded\r\n",
    );
    expectInertJson(reply, { statusCode: 302, description: "<script>", type: "html" });
  });
});

describe("dictionaries the handler builds still work", () => {
  test("the spec's shape from a literal", async () => {
    const reply = await rawGet(port, "/own");
    expect(reply.status).toBe(201);
    expect(reply.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(reply.body).toBe("<b>made here</b>");
  });

  test("client text inside a handler-built dictionary keeps the handler's type", async () => {
    const reply = await rawPost(
      port,
      "/own-from-client",
      JSON.stringify({ text: "<script>1</script>" }),
      json,
    );
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toBe("text/plain;charset=utf-8");
    expect(reply.body).toBe("<script>1</script>");
  });
});
