/**
 * A route's tool schemas. `inputSchema` gathers everything the route reads
 * from a client into one object: its path parameters, its typed `args` (query),
 * and its JSON body, whose fields are merged in at the top level when the body
 * schema is an object whose field names clash with nothing (what a model finds
 * easiest), else given as one `body` property. `outputSchema` comes from the
 * route's documented 2xx response schema (`responses`), where it has one.
 */
import type { JsonSchema } from "../../args/json-schema.ts";
import { type Direction, isStandardSchema, standardJsonSchema } from "../../args/standard-schema.ts";
import { ArgSpec } from "../../args/t.ts";
import { responseDocOf } from "../../contracts/declared.ts";
import { isJsonMediaType, mediaType } from "../../http/media-type.ts";
import type { ResponseDoc, SchemaSource } from "../../openapi/types.ts";
import { patternParams, type RouteRecord } from "../../router/route.ts";

export type BodyPlan =
  /** No body is sent. */
  | { mode: "none" }
  /** The body is an object made of these top-level arguments. */
  | { mode: "merged"; fields: readonly string[] }
  /** The `body` argument is the body (schema'd, or free JSON when `free`). */
  | { mode: "property"; free: boolean };

/** How the tool's arguments map back onto an HTTP request of the route. */
export interface InputPlan {
  schema: JsonSchema;
  pathParams: readonly string[];
  /** `args` that are not path parameters: sent in the query string. */
  queryArgs: ReadonlyMap<string, ArgSpec<unknown>>;
  body: BodyPlan;
}

/** Methods whose requests carry a body the route reads. */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** Methods for which a route without a `body` schema still gets a free-form `body` argument. */
const FREE_BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

/** JSON Schema of a `body`/`responses` schema, standalone (its `$defs` stay with it). */
export function schemaOf(source: SchemaSource, where: string, direction: Direction): JsonSchema {
  let schema: JsonSchema;
  if (source instanceof ArgSpec) schema = source.jsonSchema();
  else if (isStandardSchema(source)) schema = standardJsonSchema(source, direction) ?? {};
  else if (typeof source === "object" && source !== null && !Array.isArray(source)) schema = { ...source };
  else
    throw new TypeError(
      `${where}: a schema must be a t spec, a Standard Schema validator or a JSON Schema object`,
    );
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

function containsRootRef(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(containsRootRef);
  if (typeof node !== "object" || node === null) return false;
  return Object.entries(node).some(
    ([key, value]) => (key === "$ref" && value === "#") || containsRootRef(value),
  );
}

/** Rewrites `$ref: "#"` (a recursive body schema) to point at the body's new place. */
function rerooted(node: unknown, root: string): unknown {
  if (Array.isArray(node)) return node.map((item) => rerooted(item, root));
  if (typeof node !== "object" || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === "$ref" && value === "#" ? root : rerooted(value, root),
    ]),
  );
}

export function inputPlan(route: RouteRecord): InputPlan {
  const where = `${route.method} ${route.path}`;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const defs: Record<string, JsonSchema> = {};
  const pathParams = patternParams(route.path);
  const args = route.options.args ?? {};
  for (const name of pathParams) {
    const spec = args[name];
    const wildcard = route.path.includes(`/*${name}`);
    properties[name] = spec
      ? spec.jsonSchema()
      : wildcard
        ? { type: "string" }
        : { type: "string", minLength: 1 };
    required.push(name);
  }
  const queryArgs = new Map<string, ArgSpec<unknown>>();
  for (const [name, spec] of Object.entries(args) as [string, ArgSpec<unknown>][]) {
    if (pathParams.includes(name)) continue;
    queryArgs.set(name, spec);
    properties[name] = spec.jsonSchema();
    if (!spec.isOptional) required.push(name);
  }

  let body: BodyPlan = { mode: "none" };
  const source = route.options.body;
  if (source !== undefined && source !== null && BODY_METHODS.has(route.method)) {
    const { $defs, definitions, ...schema } = schemaOf(
      source as SchemaSource,
      `body of ${where}`,
      "input",
    ) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
      definitions?: Record<string, JsonSchema>;
    };
    Object.assign(defs, $defs);
    const fields = Object.keys(schema.properties ?? {});
    const mergeable =
      schema.type === "object" &&
      fields.length > 0 &&
      fields.every((field) => !(field in properties)) &&
      definitions === undefined &&
      !containsRootRef(schema);
    if (mergeable) {
      Object.assign(properties, schema.properties);
      required.push(...(schema.required ?? []));
      body = { mode: "merged", fields };
    } else if (!("body" in properties)) {
      properties.body = rerooted(
        definitions === undefined ? schema : { ...schema, definitions },
        "#/properties/body",
      ) as JsonSchema;
      required.push("body");
      body = { mode: "property", free: false };
    } else {
      throw new Error(
        `${where}: an argument named 'body' leaves no place for the request body in the MCP tool`,
      );
    }
  } else if (FREE_BODY_METHODS.has(route.method) && !("body" in properties)) {
    // No schema to go by: the handler reads `request.json()` itself, so any JSON value may be sent.
    properties.body = { description: "The JSON request body, if the endpoint takes one." };
    body = { mode: "property", free: true };
  }

  const schema: JsonSchema = { type: "object", properties };
  if (required.length > 0) schema.required = [...new Set(required)];
  // Unknown arguments are refused with an isError result: a misspelt name must not be silently dropped.
  schema.additionalProperties = false;
  if (Object.keys(defs).length > 0) schema.$defs = defs;
  return { schema, pathParams, queryArgs, body };
}

const SUCCESS = /^2(\d\d|XX)$/;

function isJsonMedia(contentType: string | undefined): boolean {
  return contentType === undefined || isJsonMediaType(mediaType(contentType));
}

/** The documented JSON schema of the route's first 2xx response, and whether it is wrapped as `{ result }`. */
export interface OutputPlan {
  schema: JsonSchema;
  /** MCP's `structuredContent` is an object: a non-object result travels as `{ result: value }`. */
  wrapped: boolean;
}

/**
 * `additionalProperties: false` removed everywhere. Validators write it on the output side because
 * parsing strips unknown keys. The response contract (docs/responses.md) strips them too, but not with
 * `responseCheck: "off"` nor in mode "log" when the value breaks its schema: a route that returns one
 * field more than documented would then be rejected by clients that check `structuredContent` against
 * `outputSchema` (the v2 SDK client does).
 */
function open(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(open);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "additionalProperties" && value === false) continue;
    out[key] = open(value);
  }
  return out;
}

export function outputPlan(route: RouteRecord): OutputPlan | null {
  const responses = route.options.responses ?? {};
  const key = Object.keys(responses)
    .filter((status) => SUCCESS.test(status))
    .sort()[0];
  if (key === undefined) return null;
  const doc = responseDocOf(key, responses[key]) as string | ResponseDoc | undefined;
  if (typeof doc !== "object" || doc === null || doc.schema === undefined || !isJsonMedia(doc.contentType))
    return null;
  const schema = open(
    schemaOf(doc.schema, `responses.${key} of ${route.method} ${route.path}`, "output"),
  ) as JsonSchema;
  if (schema.type === "object") return { schema, wrapped: false };
  const { $defs, ...inner } = schema as JsonSchema & { $defs?: Record<string, JsonSchema> };
  const wrappedSchema: JsonSchema = { type: "object", properties: { result: inner }, required: ["result"] };
  if ($defs !== undefined) wrappedSchema.$defs = $defs;
  return { schema: wrappedSchema, wrapped: true };
}
