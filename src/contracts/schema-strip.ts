/**
 * Keeps only what a JSON Schema declares, without checking anything: the
 * fallback of mode "log" when a Standard Schema rejects a value, so that the
 * value sent anyway still loses the properties the contract does not name
 * (docs/responses.md, "Response contracts"). The schema is the validator's
 * own output-side JSON Schema (zod ≥ 4, arktype, …); without one, nothing
 * can be stripped and the value goes as it is.
 */
import type { JsonSchema } from "../args/json-schema.ts";

type Node = JsonSchema & Record<string, unknown>;
export type Strip = (value: unknown) => unknown;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The stripper of `root` (its `$defs`/`definitions` are what local `$ref`s point at). */
export function compileStrip(root: JsonSchema): Strip {
  const defs = {
    ...((root as Node).definitions as Record<string, Node> | undefined),
    ...((root as Node).$defs as Record<string, Node> | undefined),
  };
  const resolve = (node: Node, depth: number): Node | null => {
    const ref = node.$ref;
    if (typeof ref !== "string") return node;
    if (depth > 32) return null;
    if (ref === "#") return resolve(root as Node, depth + 1);
    const match = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref);
    const target = match ? defs[decodeURIComponent(match[1] as string)] : undefined;
    return target === undefined ? null : resolve(target, depth + 1);
  };
  const strip = (schema: Node, value: unknown, depth: number): unknown => {
    const node = resolve(schema, 0);
    if (node === null || depth > 64) return value;
    const branches = (node.anyOf ?? node.oneOf) as Node[] | undefined;
    if (Array.isArray(branches)) {
      const branch = branches.find((candidate) => fits(resolve(candidate, 0), value));
      return branch === undefined ? value : strip(branch, value, depth + 1);
    }
    if (Array.isArray(node.allOf)) {
      // Properties declared in any part are kept: merge the parts' properties, then strip once.
      const properties = Object.assign(
        {},
        ...(node.allOf as Node[]).map((part) => resolve(part, 0)?.properties ?? {}),
        node.properties ?? {},
      );
      return strip({ type: "object", properties }, value, depth + 1);
    }
    if (Array.isArray(value) && isObject(node.items)) {
      return value.map((item) => strip(node.items as Node, item, depth + 1));
    }
    if (isObject(value) && isObject(node.properties)) {
      const properties = node.properties as Record<string, Node>;
      const open = node.additionalProperties !== undefined && node.additionalProperties !== false;
      const out: Record<string, unknown> = open ? { ...value } : {};
      for (const key of Object.keys(properties)) {
        if (value[key] !== undefined) out[key] = strip(properties[key] as Node, value[key], depth + 1);
      }
      return out;
    }
    return value;
  };
  return (value) => strip(root as Node, value, 0);
}

/** Whether `value` has the JSON type a branch of `anyOf`/`oneOf` names (the branch to strip by). */
function fits(node: Node | null, value: unknown): boolean {
  if (node === null) return false;
  const type = node.type;
  if (type === undefined) return node.properties !== undefined ? isObject(value) : true;
  const types = Array.isArray(type) ? (type as string[]) : [type as string];
  return types.some((name) => {
    switch (name) {
      case "object":
        return isObject(value);
      case "array":
        return Array.isArray(value);
      case "null":
        return value === null;
      case "integer":
        return Number.isInteger(value);
      default:
        return typeof value === name;
    }
  });
}
