/**
 * How the OpenAPI document describes error answers when the app uses problem
 * details (`errors: "problem"`): one `ProblemDetails` component, served as
 * `application/problem+json`.
 */
import type { JsonSchema } from "../args/json-schema.ts";
import { PROBLEM_CONTENT_TYPE } from "./details.ts";

export const PROBLEM_SCHEMA_NAME = "ProblemDetails";

export const PROBLEM_SCHEMA: JsonSchema = {
  type: "object",
  description: 'RFC 9457 problem details: every error webfw answers when the app has `errors: "problem"`.',
  properties: {
    type: {
      type: "string",
      description: "A URI naming the kind of problem; `about:blank` for a bare status.",
    },
    title: { type: "string", description: "A short summary of the kind of problem." },
    status: { type: "integer", minimum: 400, maximum: 599 },
    detail: { type: "string", description: "This occurrence, for a human." },
    instance: { type: "string", description: "The request's path." },
    requestId: { type: "string", description: "The request id (also in the X-Request-Id header when on)." },
    errors: {
      type: "array",
      description: "Validation issues (400 of arguments, 422 of the body).",
      items: {
        type: "object",
        properties: {
          detail: { type: "string" },
          location: { type: "string", enum: ["path", "query", "body"] },
          name: { type: "string", description: "The parameter (path and query issues)." },
          pointer: { type: "string", description: "A JSON Pointer fragment into the body (body issues)." },
        },
        required: ["detail", "location"],
      },
    },
  },
  required: ["type", "title", "status"],
};

/** The `content` of an error response: problem+json with a `$ref` to the component. */
export function problemContent(ref: string): Record<string, unknown> {
  return { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: ref } } };
}
