/** The example apps' documents are valid OpenAPI 3.1 and say what the apps do. */
import { describe, expect, test } from "bun:test";
import bookshelf from "../../examples/openapi-app.ts";
import showcase from "../../examples/showcase.ts";
import { expectValidOpenApi, fetchDocument, type Json, operation, parameter } from "./helpers.ts";

describe("examples/openapi-app.ts", () => {
  test("valid, with the documented shapes", async () => {
    const doc = await fetchDocument(bookshelf);
    await expectValidOpenApi(doc);
    expect(Object.keys(doc.paths as Json).sort()).toEqual([
      "/books",
      "/books/{id}",
      "/covers/{file}",
      "/health",
    ]);
    expect(parameter(operation(doc, "/books", "get"), "limit")).toEqual({
      name: "limit",
      in: "query",
      description: "At most this many books",
      schema: { type: "integer", default: 10 },
    });
    const add = operation(doc, "/books", "post");
    expect(add.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(add.responses as Json).sort()).toEqual([
      "201",
      "400",
      "401",
      "408",
      "413",
      "415",
      "422",
      "500",
      "503",
    ]);
    expect(operation(doc, "/books/{id}", "delete").deprecated).toBe(true);
    expect((operation(doc, "/covers/{file}", "get").responses as Json)["200"]).toEqual({
      description: "The cover",
      content: { "text/plain": {} },
    });
  });

  test("the routes do what the document says", async () => {
    bookshelf.resetRequestClient();
    expect(await (await bookshelf.request("/books/1")).json()).toMatchObject({ title: "Dune" });
    expect((await bookshelf.request("/books/x")).status).toBe(400);
    expect((await bookshelf.request("/books", { method: "POST", body: "{}" })).status).toBe(401);
    const created = await bookshelf.request("/books", {
      method: "POST",
      headers: { authorization: "Bearer secret-token", "content-type": "application/json" },
      body: JSON.stringify({ title: "" }),
    });
    expect(created.status).toBe(422);
    expect((await bookshelf.request("/internal/stats")).status).toBe(200);
  });
});

describe("examples/showcase.ts", () => {
  test("valid", async () => {
    const doc = await fetchDocument(showcase);
    await expectValidOpenApi(doc);
    expect(operation(doc, "/add", "get").summary).toBe("Add two integers");
    expect(operation(doc, "/me", "get").security).toEqual([{ bearerAuth: [] }]);
  });
});
