/**
 * Path and query parameters of an operation. Query and path values are text, so
 * a schema says which texts are accepted: booleans take exactly the spellings
 * `t.bool()` converts (src/args/t.ts), numbers the JSON Schema number syntax
 * every OpenAPI tool coerces (docs/openapi.md, "One contract for conversions").
 */
import type { JsonSchema } from "../args/json-schema.ts";
import { type ArgSpec, FALSE_SPELLINGS, TRUE_SPELLINGS } from "../args/t.ts";
import { patternParams } from "../router/route.ts";
import { withoutSafeIntegerBounds } from "./schema.ts";

/** Path parameters (always required, typed by `args` when it names them), then `args` read from the query. */
export function routeParameters(path: string, argShape: unknown): Record<string, unknown>[] {
  const args = (argShape ?? {}) as Record<string, ArgSpec<unknown>>;
  const pathNames = patternParams(path);
  const parameters: Record<string, unknown>[] = [];
  for (const name of pathNames) {
    const spec = args[name];
    const wildcard = path.split("/").includes(`*${name}`);
    const parameter = describeParameter(name, "path", spec ? spec.jsonSchema() : { type: "string" }, true);
    if (wildcard && parameter.description === undefined) {
      parameter.description = "The rest of the path (may contain `/`).";
    }
    parameters.push(parameter);
  }
  for (const [name, spec] of Object.entries(args)) {
    if (pathNames.includes(name)) continue;
    parameters.push(describeParameter(name, "query", spec.jsonSchema(), !spec.isOptional));
  }
  return parameters;
}

function describeParameter(name: string, where: "path" | "query", schema: JsonSchema, required: boolean) {
  const { description, ...rest } = withoutSafeIntegerBounds(schema) as JsonSchema;
  const parameter: Record<string, unknown> = { name, in: where };
  if (typeof description === "string") parameter.description = description;
  if (required) parameter.required = true;
  // Objects in the query string are JSON text (`t.dict()`, `t.object()`), which OpenAPI says with `content`.
  if (rest.type === "object") parameter.content = { "application/json": { schema: rest } };
  else parameter.schema = textual(rest);
  return parameter;
}

/** The boolean spellings a text value may use, as a schema beside `type: boolean`. */
const BOOLEAN_TEXT: JsonSchema = {
  type: "string",
  enum: [...TRUE_SPELLINGS, ...FALSE_SPELLINGS],
};

/**
 * A schema for a value sent as text (query, path, form field): booleans widen to the spellings
 * the server accepts. Objects inside are JSON text and stay as they are.
 */
export function textual(schema: JsonSchema): JsonSchema {
  if (schema.type === "boolean") {
    const { type: _type, ...rest } = schema;
    return { ...rest, anyOf: [{ type: "boolean" }, BOOLEAN_TEXT] };
  }
  if (schema.type === "array" && schema.items !== undefined)
    return { ...schema, items: textual(schema.items) };
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options))
      return { ...schema, [key]: options.map((option) => textual(option as JsonSchema)) };
  }
  return schema;
}

/** A form body's schema: each property is a text field (an object property stays JSON text). */
export function formSchema(schema: JsonSchema): JsonSchema {
  if (schema.type !== "object" || schema.properties === undefined) return schema;
  const properties: Record<string, JsonSchema> = {};
  for (const [key, value] of Object.entries(schema.properties)) properties[key] = textual(value);
  return { ...schema, properties };
}
