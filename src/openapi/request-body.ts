/**
 * The `requestBody` of an operation: what the server really reads.
 *
 * - `body:` a schema: JSON (typed as the schema says), or a form, urlencoded or
 *   multipart, whose fields are text converted as query values (src/serve/dispatch.ts);
 * - `body: "stream"`: the handler reads the body as it arrives, a multipart upload part by
 *   part (`request.parts()`) or any bytes (`request.raw.body`): both are documented;
 * - no `body` on POST/PUT/PATCH: the handler may read any body (`request.json()`,
 *   `formData`, `files`, `body`), so any is documented, files as `format: binary`.
 */
import type { JsonSchema } from "../args/json-schema.ts";
import type { RouteRecord } from "../router/route.ts";
import { formSchema } from "./parameters.ts";
import { type SchemaRegistry, toJsonSchema } from "./schema.ts";
import type { SchemaSource } from "./types.ts";

/** The methods whose body the server reads before the handler (src/serve/dispatch.ts). */
export const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** The methods whose body is documented when the route declares none (a DELETE body is not). */
const DOCUMENTED_BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

const FIELD_OR_FILE: JsonSchema = {
  anyOf: [
    { type: "string" },
    { type: "string", format: "binary", contentMediaType: "application/octet-stream" },
  ],
};
const ANY_MULTIPART: JsonSchema = {
  type: "object",
  description: "Any fields and files.",
  additionalProperties: FIELD_OR_FILE,
};

export function requestBody(
  route: RouteRecord,
  registry: SchemaRegistry,
  hint: string,
): Record<string, unknown> | undefined {
  const { body } = route.options;
  if (body === "stream") {
    return {
      required: true,
      content: {
        "multipart/form-data": { schema: ANY_MULTIPART },
        "*/*": { schema: { type: "string", format: "binary" } },
      },
    };
  }
  if (body !== undefined && body !== null) {
    const schema = toJsonSchema(body as SchemaSource, registry, hint);
    const form = formSchema(schema);
    return {
      required: true,
      content: {
        "application/json": { schema },
        "application/x-www-form-urlencoded": { schema: form },
        "multipart/form-data": { schema: form },
      },
    };
  }
  if (!DOCUMENTED_BODY_METHODS.has(route.method)) return undefined;
  return {
    description: "Any body: the handler reads it (`request.json()`, `formData`, `files`, `body`).",
    content: {
      "application/json": { schema: {} },
      "application/x-www-form-urlencoded": {
        schema: { type: "object", additionalProperties: { type: "string" } },
      },
      "multipart/form-data": { schema: ANY_MULTIPART },
      "*/*": { schema: {} },
    },
  };
}
