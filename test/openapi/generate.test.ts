/**
 * The generated document, read from `GET /openapi.json`: key paths asserted
 * one by one (no snapshots), and every document checked by an OpenAPI 3.1
 * schema validator.
 */
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { AuthenticationHandler, Identity, SubRouter, t, Webfw } from "../../src/index.ts";
import {
  expectValidOpenApi,
  fetchDocument,
  type Json,
  mediaSchema,
  operation,
  parameter,
} from "./helpers.ts";

class AnyToken extends AuthenticationHandler {
  authenticate(): Identity {
    return new Identity({ claims: {} });
  }
}

function fullApp(): Webfw {
  const app = new Webfw(import.meta.path, {
    openapi: { title: "Test API", version: "2.3.4", description: "Hello" },
  });
  app.configureAuthentication(new AnyToken());
  app.get("/", () => "home", { summary: "Home page", description: "The *root*." });
  app.get("/items/:id", ({ args }) => args, {
    args: {
      id: t.int().describe("Item id"),
      q: t.optional(t.str()),
      tags: t.list(t.str()),
      verbose: t.bool().default(false),
      ratio: t.float(),
      filter: t.dict(),
    },
  });
  app.put("/items/:id", () => "ok", { body: t.object({ name: t.str(), price: t.float().default(1) }) });
  app.post("/zod", () => "ok", {
    body: z.object({
      name: z.string().min(2),
      age: z.number().int().optional(),
      count: z.number().int().min(0).optional(),
    }),
    authRequired: true,
    responses: { "201": { description: "Created", schema: z.object({ id: z.number() }) }, "409": "Conflict" },
  });
  app.patch("/plain-schema", () => "ok", {
    responses: {
      "200": { description: "An HTML page", contentType: "text/html", schema: { type: "string" } },
    },
  });
  app.delete("/old", () => undefined, { deprecated: true, tags: ["legacy"] });
  app.get("/hidden", () => "secret", { includeInSchema: false });
  app.head("/ping", () => undefined);
  app.get("/files/*rest", ({ pathParams }) => pathParams.rest);
  app.options("/opts", () => undefined);
  app.connect("/tunnel", () => undefined);
  const users = new SubRouter(import.meta.path, { prefix: "/users" });
  users.get("/", () => []);
  users.get("/:userId", ({ pathParams }) => pathParams.userId, { tags: ["people"] });
  const admin = new SubRouter(import.meta.path, { prefix: "/admin" });
  admin.get("/stats", () => ({}));
  users.includeRouter(admin);
  app.includeRouter(users);
  const flat = new SubRouter(import.meta.path);
  flat.get("/no-prefix", () => "x");
  app.includeRouter(flat);
  return app;
}

describe("generated document", () => {
  const app = fullApp();
  let doc: Json;

  test("is valid OpenAPI 3.1", async () => {
    doc = await fetchDocument(app);
    expect(doc.openapi).toBe("3.1.0");
    await expectValidOpenApi(doc);
  });

  test("info comes from the app options", () => {
    expect(doc.info).toEqual({ title: "Test API", version: "2.3.4", description: "Hello" });
  });

  test("every documented route, with OpenAPI path templates and methods", () => {
    const paths = doc.paths as Record<string, Json>;
    expect(Object.keys(paths).sort()).toEqual(
      [
        "/",
        "/items/{id}",
        "/zod",
        "/plain-schema",
        "/old",
        "/ping",
        "/files/{rest}",
        "/opts",
        "/users",
        "/users/{userId}",
        "/users/admin/stats",
        "/no-prefix",
      ].sort(),
    );
    expect(Object.keys(paths["/items/{id}"] as Json).sort()).toEqual(["get", "put"]);
    expect(Object.keys(paths["/ping"] as Json)).toEqual(["head"]);
    expect(Object.keys(paths["/opts"] as Json)).toEqual(["options"]);
  });

  test("includeInSchema: false, CONNECT and the docs routes themselves are left out", () => {
    const paths = doc.paths as Record<string, Json>;
    expect(paths["/hidden"]).toBeUndefined();
    expect(paths["/tunnel"]).toBeUndefined();
    expect(paths["/openapi.json"]).toBeUndefined();
    expect(paths["/docs"]).toBeUndefined();
    expect(JSON.stringify(doc)).not.toContain("/docs/assets");
  });

  test("summary, description and a unique operationId", () => {
    const home = operation(doc, "/", "get");
    expect(home.summary).toBe("Home page");
    expect(home.description).toBe("The *root*.");
    expect(home.operationId).toBe("get_root");
    const ids = Object.values(doc.paths as Record<string, Record<string, Json>>).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("typed args: path parameter typed and required, query parameters with JSON Schema types", () => {
    const op = operation(doc, "/items/{id}", "get");
    expect(parameter(op, "id")).toEqual({
      name: "id",
      in: "path",
      description: "Item id",
      required: true,
      schema: { type: "integer" },
    });
    expect(parameter(op, "q")).toEqual({ name: "q", in: "query", schema: { type: "string" } });
    expect(parameter(op, "tags")).toEqual({
      name: "tags",
      in: "query",
      schema: { type: "array", items: { type: "string" } },
    });
    expect(parameter(op, "verbose")).toEqual({
      name: "verbose",
      in: "query",
      // Query text: exactly the spellings t.bool() accepts.
      schema: {
        default: false,
        anyOf: [
          { type: "boolean" },
          { type: "string", enum: ["true", "1", "yes", "on", "false", "0", "no", "off"] },
        ],
      },
    });
    expect(parameter(op, "ratio")).toEqual({
      name: "ratio",
      in: "query",
      required: true,
      schema: { type: "number" },
    });
    // JSON text in the query string is described with `content`.
    expect(parameter(op, "filter")).toEqual({
      name: "filter",
      in: "query",
      required: true,
      content: { "application/json": { schema: { type: "object" } } },
    });
    const responses = op.responses as Json;
    // No declared answer: 204 for nothing, 2XX with whatever a value becomes.
    expect(Object.keys(responses).sort()).toEqual(["204", "2XX", "400", "500"]);
    expect((responses["400"] as Json).content).toEqual({ "text/plain": { schema: { type: "string" } } });
  });

  test("path parameters without args are strings; a wildcard is one parameter", () => {
    expect(parameter(operation(doc, "/users/{userId}", "get"), "userId")).toEqual({
      name: "userId",
      in: "path",
      required: true,
      schema: { type: "string" },
    });
    const rest = parameter(operation(doc, "/files/{rest}", "get"), "rest");
    expect(rest.in).toBe("path");
    expect(rest.required).toBe(true);
    expect(String(rest.description)).toContain("/");
  });

  test("a t.object body becomes the JSON request body schema, with 400 and 422", () => {
    const op = operation(doc, "/items/{id}", "put");
    const schema = {
      type: "object",
      properties: { name: { type: "string" }, price: { type: "number", default: 1 } },
      required: ["name"],
    };
    // JSON as typed; forms (urlencoded, multipart) with the same fields, converted from text.
    expect(op.requestBody).toEqual({
      required: true,
      content: {
        "application/json": { schema },
        "application/x-www-form-urlencoded": { schema },
        "multipart/form-data": { schema },
      },
    });
    const responses = op.responses as Json;
    expect(Object.keys(responses).sort()).toEqual([
      "204",
      "2XX",
      "400",
      "408",
      "413",
      "415",
      "422",
      "500",
      "503",
    ]);
    expect((responses["415"] as Json).headers).toEqual({
      "Accept-Post": { description: "The media types this route accepts", schema: { type: "string" } },
    });
    expect(responses["422"]).toEqual({
      description: "The body does not match the schema",
      content: { "application/json": { schema: { $ref: "#/components/schemas/ValidationError" } } },
    });
    const schemas = (doc.components as Json).schemas as Json;
    expect((schemas.ValidationError as Json).required).toEqual(["detail", "issues"]);
  });

  test("a zod body through Standard Schema's JSON Schema; declared responses with content types", () => {
    const op = operation(doc, "/zod", "post");
    const schema = mediaSchema(op.requestBody as Json);
    expect(schema.type).toBe("object");
    expect(schema.required).toEqual(["name"]);
    // zod's safe-integer bounds on `.int()` are dropped; bounds the app wrote are kept.
    expect(schema.properties).toEqual({
      name: { type: "string", minLength: 2 },
      age: { type: "integer" },
      count: { type: "integer", minimum: 0 },
    });
    expect(schema.$schema).toBeUndefined();
    const responses = op.responses as Json;
    expect(Object.keys(responses).sort()).toEqual([
      "201",
      "400",
      "401",
      "408",
      "409",
      "413",
      "415",
      "422",
      "500",
      "503",
    ]);
    // A declared error is an HttpError: the app's error body.
    expect(responses["409"]).toEqual({
      description: "Conflict",
      content: { "text/plain": { schema: { type: "string" } } },
    });
    const created = responses["201"] as Json;
    expect(created.description).toBe("Created");
    expect(mediaSchema(created).required).toEqual(["id"]);
    // The 200 default is only added when no success response is declared.
    expect(responses["200"]).toBeUndefined();
    const html = operation(doc, "/plain-schema", "patch").responses as Json;
    expect(html["200"]).toEqual({
      description: "An HTML page",
      content: { "text/html": { schema: { type: "string" } } },
    });
  });

  test("authRequired: bearer security scheme, operation security and a 401", () => {
    const op = operation(doc, "/zod", "post");
    expect(op.security).toEqual([{ bearerAuth: [] }]);
    expect((op.responses as Json)["401"]).toMatchObject({ description: "Not authenticated" });
    expect(((doc.components as Json).securitySchemes as Json).bearerAuth).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
    // With a scheme in the document, a public operation says so.
    expect(operation(doc, "/", "get").security).toEqual([]);
  });

  test("sub-router prefixes as tags, plus the route's own tags; deprecated", () => {
    expect(operation(doc, "/users", "get").tags).toEqual(["users"]);
    expect(operation(doc, "/users/{userId}", "get").tags).toEqual(["users", "people"]);
    expect(operation(doc, "/users/admin/stats", "get").tags).toEqual(["users/admin"]);
    expect(operation(doc, "/no-prefix", "get").tags).toBeUndefined();
    expect(operation(doc, "/", "get").tags).toBeUndefined();
    const old = operation(doc, "/old", "delete");
    expect(old.tags).toEqual(["legacy"]);
    expect(old.deprecated).toBe(true);
    expect(operation(doc, "/", "get").deprecated).toBeUndefined();
    expect(doc.tags).toEqual([
      { name: "legacy" },
      { name: "users" },
      { name: "people" },
      { name: "users/admin" },
    ]);
  });
});

describe("schemas from validators", () => {
  test("recursive zod schemas and $defs move to components and the refs follow", async () => {
    interface Category {
      name: string;
      children: Category[];
    }
    const Category: z.ZodType<Category> = z.lazy(() =>
      z.object({ name: z.string(), children: z.array(Category) }),
    );
    const Address = z.object({ street: z.string() }).meta({ id: "Address" });
    // A user schema named like the framework's own does not replace it.
    const Mine = z.object({ mine: z.boolean() }).meta({ id: "ValidationError" });
    const app = new Webfw(import.meta.path);
    app.post("/categories", () => "ok", { body: Category });
    app.post("/people", () => "ok", {
      body: z.object({ home: Address, work: Address.optional(), mine: Mine }),
    });
    const doc = await fetchDocument(app);
    await expectValidOpenApi(doc);
    const schemas = (doc.components as Json).schemas as Record<string, Json>;
    const categoryRef = mediaSchema(operation(doc, "/categories", "post").requestBody as Json).$ref as string;
    expect(categoryRef).toStartWith("#/components/schemas/");
    const category = schemas[categoryRef.split("/").pop() as string] as Json;
    const children = (category.properties as Record<string, Json>).children as Json;
    expect((children.items as Json).$ref).toBe(categoryRef);
    expect(schemas.Address).toEqual({
      type: "object",
      properties: { street: { type: "string" } },
      required: ["street"],
    });
    const people = mediaSchema(operation(doc, "/people", "post").requestBody as Json);
    expect((people.properties as Record<string, Json>).home).toEqual({
      $ref: "#/components/schemas/Address",
    });
    expect((people.properties as Record<string, Json>).mine).toEqual({
      $ref: "#/components/schemas/ValidationError_2",
    });
    expect((schemas.ValidationError as Json).required).toEqual(["detail", "issues"]);
    expect((schemas.ValidationError_2 as Json).required).toEqual(["mine"]);
    expect(JSON.stringify(doc)).not.toContain("$defs");
  });

  test("a validator that cannot describe itself documents as any value", async () => {
    const opaque = {
      "~standard": { version: 1 as const, vendor: "custom", validate: (value: unknown) => ({ value }) },
    };
    const app = new Webfw(import.meta.path);
    app.post("/opaque", () => "ok", { body: opaque });
    app.post("/date", () => "ok", { body: z.object({ when: z.date() }) });
    const doc = await fetchDocument(app);
    await expectValidOpenApi(doc);
    const body = (path: string) => operation(doc, path, "post").requestBody as Json;
    expect(body("/opaque").content).toEqual({
      "application/json": { schema: {} },
      "application/x-www-form-urlencoded": { schema: {} },
      "multipart/form-data": { schema: {} },
    });
    expect(mediaSchema(body("/date")).type).toBe("object");
  });
});

describe("defaults and mistakes", () => {
  test("title and version default to the nearest package.json", async () => {
    const pkg = (await Bun.file(`${import.meta.dir}/../../package.json`).json()) as {
      name: string;
      version: string;
    };
    const doc = await fetchDocument(new Webfw(import.meta.path));
    expect(doc.info).toEqual({ title: pkg.name, version: pkg.version });
    await expectValidOpenApi(doc);
  });

  test("without a package.json: 'API' 0.0.0; an app with no routes is still a valid document", async () => {
    const doc = await fetchDocument(new Webfw("/nonexistent-dir/app.ts"));
    expect(doc.info).toEqual({ title: "API", version: "0.0.0" });
    expect(doc.paths).toEqual({});
    await expectValidOpenApi(doc);
  });

  test("a bad status key or response doc fails the build with the route named", async () => {
    const app = new Webfw(import.meta.path);
    app.get("/x", () => "x", { responses: { "2000": "nope" } });
    await expect(app.build()).rejects.toThrow("responses of GET /x: '2000' is not a status code");
    const other = new Webfw(import.meta.path);
    other.get("/y", () => "y", { responses: { "200": { contentType: "text/plain" } as never } });
    await expect(other.build()).rejects.toThrow("GET /y response 200 must be a description string");
    const third = new Webfw(import.meta.path);
    third.get("/z", () => "z", { responses: { "200": { description: "d", contentType: "json" } } });
    await expect(third.build()).rejects.toThrow("contentType must be a media type");
  });
});
