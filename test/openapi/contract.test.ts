/**
 * The document and the server agree (docs/openapi.md): the `status` option, strict JSON bodies
 * and forms converted from text, declared errors with the app's error body, Input/Output schema
 * names, safe-integer bounds dropped from arguments, servers and public operations.
 */
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { AuthenticationHandler, HttpError, type Identity, t, Webfw } from "../../src/index.ts";
import { expectValidOpenApi, fetchDocument, type Json, operation, parameter } from "./helpers.ts";

class NoAuth extends AuthenticationHandler {
  authenticate(): Identity | null {
    return null;
  }
}

function makeApp(errors: "text" | "problem" = "text") {
  const app = new Webfw(import.meta.path, { errors, openapi: { title: "t", version: "1" } });
  app.configureAuthentication(new NoAuth());
  const Address = z.object({ city: z.string(), floor: z.number().int().default(0) }).meta({ id: "Address" });
  app.post("/made", ({ parsedBody }) => parsedBody, {
    status: 201,
    body: t.object({ price: t.float(), done: t.bool().default(false), tags: t.list(t.str()) }),
    responses: {
      "201": {
        description: "Made",
        schema: t.object({ price: t.float(), done: t.bool(), tags: t.list(t.str()) }),
      },
    },
  });
  app.post("/address", ({ parsedBody }) => parsedBody, {
    body: z.object({ address: Address }),
    responses: { "200": { description: "Echo", schema: z.object({ address: Address }) } },
  });
  app.get(
    "/gone/:id",
    () => {
      throw new HttpError(404, "gone");
    },
    { responses: { "200": "never", "404": "No such thing" } },
  );
  app.get("/count", ({ args }) => args.n, { args: { n: z.coerce.number().int() } });
  app.get("/nothing", () => undefined, { status: 204 });
  app.get("/secret", () => "s", { authRequired: true });
  return app;
}

describe("the server", () => {
  test("answers with the status option; a value's own status wins", async () => {
    const app = makeApp();
    const made = await app.request("/made", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"price":5,"tags":[]}',
    });
    expect(made.status).toBe(201);
    expect(await made.json()).toEqual({ price: 5, done: false, tags: [] });
    expect((await app.request("/nothing")).status).toBe(204);
  });

  test("JSON bodies are typed strictly: a string is not a number nor a boolean", async () => {
    const app = makeApp();
    const send = (body: string) =>
      app.request("/made", { method: "POST", headers: { "content-type": "application/json" }, body });
    const price = await send('{"price":"5","tags":[]}');
    expect(price.status).toBe(422);
    expect(await price.text()).toContain("price");
    expect((await send('{"price":5,"done":"yes","tags":[]}')).status).toBe(422);
  });

  test("forms are text: fields convert as query values do", async () => {
    const app = makeApp();
    const form = await app.request("/made", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "price=5.5&done=yes&tags=a",
    });
    expect(form.status).toBe(201);
    expect(await form.json()).toEqual({ price: 5.5, done: true, tags: ["a"] });
    const bad = await app.request("/made", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "price=cheap",
    });
    expect(bad.status).toBe(422);
  });

  test("a status option that is not a status code stops the build", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/", () => "x", { status: 99 });
    await expect(app.request("/")).rejects.toThrow("status of GET / must be an integer status code");
  });
});

describe("the document", () => {
  test("success from status, declared errors with the error body, servers, public operations", async () => {
    const doc = await fetchDocument(makeApp());
    await expectValidOpenApi(doc);
    expect(doc.servers).toEqual([{ url: "/", description: "The server that serves this document" }]);
    const made = operation(doc, "/made", "post");
    expect(Object.keys(made.responses as Json)).toContain("201");
    expect((operation(doc, "/nothing", "get").responses as Json)["204"]).toEqual({
      description: "No Content",
    });
    expect((operation(doc, "/gone/{id}", "get").responses as Json)["404"]).toEqual({
      description: "No such thing",
      content: { "text/plain": { schema: { type: "string" } } },
    });
    expect(operation(doc, "/made", "post").security).toEqual([]);
    expect(operation(doc, "/secret", "get").security).toEqual([{ bearerAuth: [] }]);
    expect(((operation(doc, "/secret", "get").responses as Json)["401"] as Json).headers).toHaveProperty(
      "WWW-Authenticate",
    );
  });

  test("problem details: declared and framework errors are application/problem+json", async () => {
    const doc = await fetchDocument(makeApp("problem"));
    await expectValidOpenApi(doc);
    const gone = (operation(doc, "/gone/{id}", "get").responses as Json)["404"] as Json;
    expect(Object.keys(gone.content as Json)).toEqual(["application/problem+json"]);
    const bad = (operation(doc, "/made", "post").responses as Json)["415"] as Json;
    expect(Object.keys(bad.content as Json)).toEqual(["application/problem+json"]);
  });

  test("a named schema that differs between request and answer: Address and AddressInput", async () => {
    const doc = await fetchDocument(makeApp());
    const schemas = (doc.components as Json).schemas as Json;
    expect(Object.keys(schemas)).toContain("Address");
    expect(Object.keys(schemas)).toContain("AddressInput");
    expect(Object.keys(schemas).some((name) => /_\d+$/.test(name))).toBe(false);
    expect((schemas.Address as Json).required).toEqual(["city", "floor"]);
    expect((schemas.AddressInput as Json).required).toEqual(["city"]);
  });

  test("t.list and defaulted fields are required in answers", async () => {
    const doc = await fetchDocument(makeApp());
    const answer = ((operation(doc, "/made", "post").responses as Json)["201"] as Json).content as Json;
    expect(((answer["application/json"] as Json).schema as Json).required).toEqual(["price", "done", "tags"]);
  });

  test("zod's safe-integer bounds are dropped from arguments too", async () => {
    const doc = await fetchDocument(makeApp());
    expect(parameter(operation(doc, "/count", "get"), "n").schema).toEqual({ type: "integer" });
  });
});
