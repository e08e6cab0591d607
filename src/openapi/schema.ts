import type { JsonSchema } from "../args/json-schema.ts";
import { type Direction, isStandardSchema, standardJsonSchema } from "../args/standard-schema.ts";
import { ArgSpec } from "../args/t.ts";
import type { SchemaSource } from "./types.ts";

/** Where internal refs point until `finish` names each component (never in a served document). */
const PENDING = "#/components/schemas/~";

interface Entry {
  name: string;
  direction: Direction;
  schema: JsonSchema;
  text: string;
}

/**
 * Named schemas shared by the document (`components.schemas`). External
 * converters emit `$defs` and `$ref: "#"`, which inside an OpenAPI document
 * would point at the document's root, so they are moved here and re-pointed.
 *
 * A named schema (zod's `.meta({ id: "Address" })`) is kept once per direction:
 * used the same way by several routes it is one component; when what a client
 * sends differs from what the server answers (defaults, `additionalProperties`),
 * the answer keeps the name and the request side is `AddressInput` (FastAPI's
 * `-Input`/`-Output` split, docs/openapi.md). Entries get internal refs, named
 * by `finish` once every route is described.
 */
export class SchemaRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly fixedSchemas: Record<string, JsonSchema> = {};

  /** The internal ref of `name` in `direction` (stored or not). */
  refOf(name: string, direction: Direction): string {
    return `${PENDING}${direction}~${componentName(name)}`;
  }

  /** Whether `name` is already given to a different schema in `direction` (two validators with one id). */
  clashes(name: string, direction: Direction, schema: JsonSchema): boolean {
    const found = this.entries.get(`${direction}~${componentName(name)}`);
    return found !== undefined && found.text !== JSON.stringify(schema);
  }

  /** A free numbered name (`Address_2`) for a schema whose name is taken by another; fill it with `store`. */
  reserve(name: string, direction: Direction): string {
    const base = componentName(name);
    let candidate = `${base}_2`;
    for (let n = 3; this.entries.has(`${direction}~${candidate}`); n++) candidate = `${base}_${n}`;
    this.entries.set(`${direction}~${candidate}`, { name: candidate, direction, schema: {}, text: "" });
    return `${PENDING}${direction}~${candidate}`;
  }

  /** Stores `schema` at an internal ref from `refOf` or `reserve`; returns the ref. */
  store(at: string, schema: JsonSchema): string {
    const key = at.slice(PENDING.length);
    const direction = key.slice(0, key.indexOf("~")) as Direction;
    const name = key.slice(key.indexOf("~") + 1);
    this.entries.set(key, { name, direction, schema, text: JSON.stringify(schema) });
    return at;
  }

  /** A schema of the framework itself under a fixed name (e.g. the 422 body). */
  fixed(name: string, schema: JsonSchema): string {
    this.fixedSchemas[name] ??= schema;
    return ref(name);
  }

  /**
   * Names every component and rewrites the internal refs in `document` (which holds every use):
   * one name when both directions agree, else `Name` for answers and `NameInput` for requests.
   */
  finish(document: unknown): { document: unknown; schemas: Record<string, JsonSchema> } {
    const taken = new Set(Object.keys(this.fixedSchemas));
    const byName = new Map<string, Entry[]>();
    for (const entry of this.entries.values()) {
      byName.set(entry.name, [...(byName.get(entry.name) ?? []), entry]);
    }
    const finalName = new Map<string, string>();
    const schemas: Record<string, JsonSchema> = { ...this.fixedSchemas };
    const claim = (wanted: string) => {
      let name = wanted;
      for (let n = 2; taken.has(name); n++) name = `${wanted}_${n}`;
      taken.add(name);
      return name;
    };
    for (const [name, entries] of byName) {
      const input = entries.find((entry) => entry.direction === "input");
      const output = entries.find((entry) => entry.direction === "output");
      if (input && output && input.text !== output.text) {
        finalName.set(`output~${name}`, claim(name));
        finalName.set(`input~${name}`, claim(`${name}Input`));
      } else {
        const shared = claim(name);
        for (const entry of entries) finalName.set(`${entry.direction}~${name}`, shared);
      }
    }
    const rename = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rename);
      if (typeof node !== "object" || node === null) return node;
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(node)) {
        out[key] =
          key === "$ref" && typeof value === "string" && value.startsWith(PENDING)
            ? ref(finalName.get(value.slice(PENDING.length)) as string)
            : rename(value);
      }
      return out;
    };
    for (const [key, entry] of this.entries) {
      schemas[finalName.get(key) as string] = rename(entry.schema) as JsonSchema;
    }
    return { document: rename(document), schemas };
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
  if (source instanceof ArgSpec) return source.jsonSchema(direction);
  if (isStandardSchema(source)) {
    const converted = standardJsonSchema(source, direction);
    return converted === null
      ? {}
      : hoist(withoutSafeIntegerBounds(converted) as JsonSchema, registry, hint, direction);
  }
  if (typeof source === "object" && source !== null && !Array.isArray(source)) {
    return hoist(source as JsonSchema, registry, hint, direction);
  }
  throw new TypeError(
    `${hint}: a schema must be a t spec, a Standard Schema validator or a JSON Schema object`,
  );
}

/** Moves `$defs` to `components.schemas` and rewrites `$ref`s that point into them or at the root (`#`). */
function hoist(schema: JsonSchema, registry: SchemaRegistry, hint: string, direction: Direction): JsonSchema {
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
  const selfRef = containsRef(root, "#") || defs.some(([, def]) => containsRef(def, "#"));
  // Definitions may refer to each other: each is rewritten with the others' refs, then stored. The
  // same schema under the same name (one zod schema used by several routes) is one component.
  const names = new Map(defs.map(([name]) => [name, registry.refOf(name, direction)]));
  const rootRef = selfRef ? registry.refOf(hint, direction) : null;
  const rewrite = (node: unknown) => rewriteRefs(node, names, rootRef) as JsonSchema;
  for (const [name, def] of defs) {
    if (registry.clashes(name, direction, rewrite(def))) names.set(name, registry.reserve(name, direction));
  }
  for (const [name, def] of defs) registry.store(names.get(name) as string, rewrite(def));
  const result = rewrite(root);
  return rootRef === null ? result : { $ref: registry.store(rootRef, result) };
}

function containsRef(node: unknown, target: string): boolean {
  if (Array.isArray(node)) return node.some((item) => containsRef(item, target));
  if (typeof node !== "object" || node === null) return false;
  return Object.entries(node).some(
    ([key, value]) => (key === "$ref" && value === target) || containsRef(value, target),
  );
}

function rewriteRefs(node: unknown, names: Map<string, string>, rootRef: string | null): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, names, rootRef));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === "$ref" && typeof value === "string"
        ? rewriteRef(value, names, rootRef)
        : rewriteRefs(value, names, rootRef);
  }
  return out;
}

/** `names` maps a `$defs` name to its (internal) component ref. */
function rewriteRef(value: string, names: Map<string, string>, rootRef: string | null): string {
  if (value === "#" && rootRef !== null) return rootRef;
  const match = /^#\/(?:\$defs|definitions)\/([^/]+)(\/.*)?$/.exec(value);
  if (!match) return value;
  const name = decodeURIComponent((match[1] as string).replace(/~1/g, "/").replace(/~0/g, "~"));
  const target = names.get(name);
  return target === undefined ? value : target + (match[2] ?? "");
}

/**
 * zod writes JavaScript's safe-integer range as the bounds of every `.int()`;
 * that is an implementation limit, not part of the API, and it fills the
 * reference page's examples with -9007199254740991. Other bounds are kept.
 */
export function withoutSafeIntegerBounds(node: unknown): unknown {
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
