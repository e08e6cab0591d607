import { expect } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import type { Webfw } from "../../src/index.ts";

export type Json = Record<string, unknown>;

/** The document the app serves, through the whole pipeline. */
export async function fetchDocument(app: Webfw, path = "/openapi.json"): Promise<Json> {
  app.resetRequestClient();
  const response = await app.request(path);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/json");
  return (await response.json()) as Json;
}

/** Fails with the validator's errors unless `document` is valid OpenAPI whose `$ref`s all resolve. */
export async function expectValidOpenApi(document: Json): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(document));
  if (!result.valid) console.error(JSON.stringify(result.errors, null, 2));
  expect(result.valid).toBe(true);
  expect(validator.version).toBe("3.1");
  // Throws on a `$ref` that points nowhere.
  validator.resolveRefs();
  expectPathParamsDeclared(document);
}

/** Every `{name}` of a path template has a required path parameter in each operation (the validator does not check this). */
function expectPathParamsDeclared(document: Json): void {
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const operation of Object.values(item)) {
      const declared = ((operation.parameters ?? []) as Json[]).filter((p) => p.in === "path");
      expect(declared.map((p) => p.name).sort()).toEqual([...names].sort());
      for (const p of declared) expect(p.required).toBe(true);
    }
  }
}

export function operation(document: Json, path: string, method: string): Json {
  const item = (document.paths as Record<string, Record<string, Json>>)[path];
  if (!item) throw new Error(`no path ${path} in ${Object.keys(document.paths as Json).join(", ")}`);
  const op = item[method];
  if (!op) throw new Error(`no ${method} on ${path}`);
  return op;
}

export function parameter(op: Json, name: string): Json {
  const found = ((op.parameters ?? []) as Json[]).find((p) => p.name === name);
  if (!found) throw new Error(`no parameter ${name}`);
  return found;
}

/** The schema of `media` in a request body or response object (`{}` when it has none). */
export function mediaSchema(holder: Json | undefined, media = "application/json"): Json {
  const content = (holder?.content ?? {}) as Record<string, Json>;
  const entry = content[media];
  if (!entry) throw new Error(`no ${media} content in ${JSON.stringify(holder)}`);
  return (entry.schema ?? {}) as Json;
}
