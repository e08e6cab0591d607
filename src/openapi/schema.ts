import type { JsonSchema } from "../args/json-schema.ts";
import { type Direction, isStandardSchema, standardJsonSchema } from "../args/standard-schema.ts";
import { ArgSpec } from "../args/t.ts";
import type { SchemaSource } from "./types.ts";

/**
 * Named schemas shared by the document (`components.schemas`). External
 * converters emit `$defs` and `$ref: "#"`, which inside an OpenAPI document
 * would point at the document's root, so they are moved here and re-pointed.
 */
export class SchemaRegistry {
  readonly schemas: Record<string, JsonSchema> = {};
  /** Names of the framework's own schemas are never handed out, so a user's `$defs` cannot shadow them. */
  private readonly taken = new Set<string>(["ValidationError", "ProblemDetails"]);

  /** A fresh component name based on `hint` (`User`, `User_2`, …); fill it with `set`. */
  reserve(hint: string): string {
    const base = componentName(hint);
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = `${base}_${n}`;
    this.taken.add(name);
    return name;
  }

  set(name: string, schema: JsonSchema): string {
    this.schemas[name] = schema;
    return ref(name);
  }

  /** A schema of the framework itself under a fixed name (e.g. the 422 body). */
  fixed(name: string, schema: JsonSchema): string {
    this.taken.add(name);
    this.schemas[name] ??= schema;
    return ref(name);
  }
}

const ref = (name: string) => `#/components/schemas/${name}`;

function componentName(hint: string): string {
  const cleaned = hint.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^_+|_+$/g, "");
  return cleaned === "" ? "Schema" : cleaned;
}

/**
 * JSON Schema for a `body`/`responses` schema: a `t` spec, a Standard Schema
 * validator that can describe itself, or a plain JSON Schema object. A
 * validator that cannot (or a type JSON Schema cannot express) gives `{}`,
 * "any value", rather than failing the whole document.
 */
export function toJsonSchema(
  source: SchemaSource,
  registry: SchemaRegistry,
  hint: string,
  direction: Direction = "input",
): JsonSchema {
  if (source instanceof ArgSpec) return source.jsonSchema();
  if (isStandardSchema(source)) {
    const converted = standardJsonSchema(source, direction);
    return converted === null ? {} : hoist(withoutSafeIntegerBounds(converted) as JsonSchema, registry, hint);
  }
  if (typeof source === "object" && source !== null && !Array.isArray(source)) {
    return hoist(source as JsonSchema, registry, hint);
  }
  throw new TypeError(
    `${hint}: a schema must be a t spec, a Standard Schema validator or a JSON Schema object`,
  );
}

/** Moves `$defs` to `components.schemas` and rewrites `$ref`s that point into them or at the root (`#`). */
function hoist(schema: JsonSchema, registry: SchemaRegistry, hint: string): JsonSchema {
  const {
    $schema: _dialect,
    $id: _id,
    $defs,
    definitions,
    ...root
  } = schema as JsonSchema & {
    $defs?: Record<string, JsonSchema>;
    definitions?: Record<string, JsonSchema>;
  };
  const defs = Object.entries({ ...definitions, ...$defs });
  // Names first, bodies after: definitions may refer to each other.
  const names = new Map(defs.map(([name]) => [name, registry.reserve(name)]));
  const selfRef = containsRef(root, "#") || defs.some(([, def]) => containsRef(def, "#"));
  const rootName = selfRef ? registry.reserve(hint) : null;
  const rewrite = (node: unknown) => rewriteRefs(node, names, rootName) as JsonSchema;
  for (const [name, def] of defs) registry.set(names.get(name) as string, rewrite(def));
  const result = rewrite(root);
  return rootName === null ? result : { $ref: registry.set(rootName, result) };
}

function containsRef(node: unknown, target: string): boolean {
  if (Array.isArray(node)) return node.some((item) => containsRef(item, target));
  if (typeof node !== "object" || node === null) return false;
  return Object.entries(node).some(
    ([key, value]) => (key === "$ref" && value === target) || containsRef(value, target),
  );
}

function rewriteRefs(node: unknown, names: Map<string, string>, rootName: string | null): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, names, rootName));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === "$ref" && typeof value === "string"
        ? rewriteRef(value, names, rootName)
        : rewriteRefs(value, names, rootName);
  }
  return out;
}

function rewriteRef(value: string, names: Map<string, string>, rootName: string | null): string {
  if (value === "#" && rootName !== null) return ref(rootName);
  const match = /^#\/(?:\$defs|definitions)\/([^/]+)(\/.*)?$/.exec(value);
  if (!match) return value;
  const name = decodeURIComponent((match[1] as string).replace(/~1/g, "/").replace(/~0/g, "~"));
  const target = names.get(name);
  return target === undefined ? value : ref(target) + (match[2] ?? "");
}

/**
 * zod writes JavaScript's safe-integer range as the bounds of every `.int()`;
 * that is an implementation limit, not part of the API, and it fills the
 * reference page's examples with -9007199254740991. Other bounds are kept.
 */
function withoutSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSafeIntegerBounds);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  const integer = (node as JsonSchema).type === "integer";
  for (const [key, value] of Object.entries(node)) {
    if (integer && key === "minimum" && value === Number.MIN_SAFE_INTEGER) continue;
    if (integer && key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
    out[key] = withoutSafeIntegerBounds(value);
  }
  return out;
}
