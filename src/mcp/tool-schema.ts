/**
 * Input schemas of MCP tools generated from `t` specs. The same as the
 * route schemas (src/args/t.ts) with one difference: a `t.list` without a
 * default is required. A route reads a repeated query parameter, where
 * "absent" and "empty" cannot be told apart, so it defaults to `[]`; a tool
 * gets a JSON object, where a missing array is the model forgetting it.
 */

import type { JsonSchema } from "../args/json-schema.ts";
import { type ArgShape, type ArgSpec, shapeSchema } from "../args/t.ts";

/** The `inputSchema` of a tool whose arguments are `shape`. */
export function mcpInputSchema(shape: ArgShape): JsonSchema {
  const schema = shapeSchema(shape);
  const required = new Set(schema.required ?? []);
  for (const [name, spec] of Object.entries(shape) as [string, ArgSpec<unknown>][]) {
    if (spec.kind === "list" && !spec.hasDefault) required.add(name);
  }
  if (required.size > 0) schema.required = Object.keys(shape).filter((name) => required.has(name));
  return schema;
}
