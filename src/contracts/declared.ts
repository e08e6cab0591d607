/**
 * What a route's `responses` option declares, read the same way by the
 * OpenAPI document, the MCP route tools and the run-time response check
 * (docs/responses.md, "Response contracts"). An entry is a description, a
 * `{ description, contentType?, schema? }` object, or, as shorthand, the
 * schema itself: `responses: { 200: t.object({...}) }`.
 */
import { isStandardSchema, type StandardSchemaV1 } from "../args/standard-schema.ts";
import { ArgSpec } from "../args/t.ts";
import { isJsonMediaType, mediaType } from "../http/media-type.ts";
import type { ResponseDoc } from "../openapi/types.ts";

/** A schema given directly as a `responses` entry: a `t` spec or a Standard Schema validator (zod, valibot, …). */
export type ResponseSchema = ArgSpec<unknown> | StandardSchemaV1;

/** One entry of the `responses` route option. */
export type ResponseEntry = string | ResponseDoc | ResponseSchema;

/** Whether `entry` is a schema given directly (not a description or a `{ description, … }` object). */
export function isResponseSchema(entry: unknown): entry is ResponseSchema {
  return entry instanceof ArgSpec || isStandardSchema(entry);
}

/**
 * The entry as a description or `ResponseDoc`: a bare schema becomes `{ description, schema }`
 * with the status's reason phrase ("Successful response" for a class like `2XX`).
 */
export function responseDocOf(status: string, entry: unknown): unknown {
  if (!isResponseSchema(entry)) return entry;
  return { description: REASONS[status] ?? "Successful response", schema: entry } satisfies ResponseDoc;
}

const REASONS: Record<string, string> = {
  "200": "OK",
  "201": "Created",
  "202": "Accepted",
  "203": "Non-Authoritative Information",
  "206": "Partial Content",
  "400": "Bad Request",
  "401": "Unauthorized",
  "403": "Forbidden",
  "404": "Not Found",
  "409": "Conflict",
  "422": "Unprocessable Content",
  "500": "Internal Server Error",
};

/**
 * The schema the run-time check can apply to the JSON body of `status`'s entry: a `t` spec or a
 * Standard Schema with a JSON media type. A plain JSON Schema object documents only (webfw has no
 * JSON Schema validator on the request path), and so does a non-JSON `contentType`.
 */
export function checkableSchema(entry: unknown): ResponseSchema | null {
  if (isResponseSchema(entry)) return entry;
  if (typeof entry !== "object" || entry === null) return null;
  const { schema, contentType } = entry as ResponseDoc;
  if (contentType !== undefined && !isJsonMediaType(mediaType(contentType))) return null;
  return isResponseSchema(schema) ? schema : null;
}
