/**
 * One JSON value against a schema as routes declare them (`BodySchema`): a
 * Standard Schema (zod, valibot, arktype, …), a `t.object({...})` or any other
 * `t` spec. Used for request bodies (src/serve/dispatch.ts) and WebSocket
 * messages (src/websocket/websocket.ts), so both report issues the same way.
 */
import type { BodySchema } from "../router/route.ts";
import { isStandardSchema, issuePath } from "./standard-schema.ts";
import { ArgError, ObjectSpec } from "./t.ts";

export interface ValueIssue {
  /** Dotted path inside the value (`items.0.name`); the `where` name for a `t` scalar. */
  path: string;
  message: string;
}

/** `path: message`, or the message alone for the whole value. */
export function describeIssue(issue: ValueIssue): string {
  return issue.path ? `${issue.path}: ${issue.message}` : issue.message;
}

export type Validated = { value: unknown } | { issues: ValueIssue[] };

/**
 * Validates `input`; `where` names the whole value in a scalar `t` spec's issue (`body`, `message`).
 * `text`: `input` is a form (every field text): `t` specs convert its fields as query values; JSON
 * is taken as typed (docs/openapi.md, "One contract for conversions").
 */
export async function validateJson(
  schema: BodySchema<unknown>,
  input: unknown,
  where: string,
  text = false,
): Promise<Validated> {
  if (isStandardSchema(schema)) {
    const result = await schema["~standard"].validate(input);
    if (result.issues) {
      return { issues: result.issues.map((issue) => ({ path: issuePath(issue), message: issue.message })) };
    }
    return { value: result.value };
  }
  if (schema instanceof ObjectSpec) return schema.validate(input, text);
  try {
    return { value: schema.fromJson(input, where, text) };
  } catch (error) {
    if (error instanceof ArgError) return { issues: [{ path: error.argument, message: error.message }] };
    throw error;
  }
}

/** Whether `value` can be a `BodySchema` (checked when a route is registered). */
export function isBodySchema(value: unknown): value is BodySchema<unknown> {
  return isStandardSchema(value) || (typeof value === "object" && value !== null && "fromJson" in value);
}
