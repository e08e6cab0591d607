import { parseClientJson } from "../response/client-data.ts";
import type { JsonSchema } from "./json-schema.ts";
import type { Direction, StandardSchemaV1 } from "./standard-schema.ts";

/** Thrown by a spec when a value is missing or cannot be converted; becomes a 400 (or 422 for bodies). */
export class ArgError extends Error {
  readonly argument: string;
  constructor(argument: string, message: string) {
    super(message);
    this.name = "ArgError";
    this.argument = argument;
  }
}

/** One bound of an argument: a check (the problem, or null) and its JSON Schema keywords. */
export interface Constraint<T> {
  check(value: T): string | null;
  schema: JsonSchema;
}

/**
 * A typed argument: how to turn query/path strings (and JSON values, for MCP
 * tools and bodies) into a value of type `T`, and how to describe it as JSON Schema.
 */
export abstract class ArgSpec<T> {
  /** Phantom field that carries `T` for inference; never set at run time. */
  declare readonly __type: T;
  abstract readonly kind: string;
  hasDefault = false;
  defaultValue: T | undefined = undefined;
  description: string | undefined = undefined;

  /** Whether the argument may be absent (optional or defaulted). */
  get isOptional(): boolean {
    return this.hasDefault;
  }

  /** Bounds and checks (`min`, `maxLength`, `pattern`, `oneOf`, …), applied after conversion. */
  protected constraints: readonly Constraint<T>[] = [];

  /** Converts the raw string values of a query or path argument. `raw` is undefined when absent. */
  parse(raw: readonly string[] | undefined, name: string): T {
    if (raw === undefined || raw.length === 0) return this.absent(name);
    return this.checked(this.fromString(raw[raw.length - 1] as string, name), name);
  }

  /**
   * Converts a JSON value (MCP tool arguments, body fields). `undefined` means absent. JSON is taken
   * as typed: `"5"` is not a number, `"yes"` not a boolean (docs/openapi.md, "One contract for
   * conversions"). `text`: the value comes from a form, whose fields are all text, so a string is
   * converted as a query value would be.
   */
  fromJson(value: unknown, name: string, text = false): T {
    if (value === undefined) return this.absent(name);
    if (text && typeof value === "string" && this.convertsText)
      return this.checked(this.fromString(value, name), name);
    return this.checked(this.convertJson(value, name, text), name);
  }

  /** Whether a form field's text is converted with `fromString` (scalars); containers convert their items. */
  protected get convertsText(): boolean {
    return true;
  }

  /** The value when it passes every constraint; else a 400 naming the argument and the bound. */
  protected checked(value: T, name: string): T {
    for (const constraint of this.constraints) {
      const problem = constraint.check(value);
      if (problem !== null) throw new ArgError(name, `argument '${name}' ${problem}`);
    }
    return value;
  }

  /** A copy of this spec with one more constraint (specs are immutable: `t.int()` can be shared). */
  protected constrained(constraint: Constraint<T>): this {
    const copy = Object.assign(Object.create(Object.getPrototypeOf(this)), this) as this;
    copy.constraints = [...this.constraints, constraint];
    return copy;
  }

  abstract fromString(raw: string, name: string): T;
  protected abstract convertJson(value: unknown, name: string, text: boolean): T;
  protected abstract baseSchema(direction: Direction): JsonSchema;

  /**
   * JSON Schema of the value: `input` (what a client may send: defaulted and list fields may be left
   * out) or `output` (what a handler returns: only `t.optional` fields may be missing).
   */
  jsonSchema(direction: Direction = "input"): JsonSchema {
    const schema = this.baseSchema(direction);
    for (const constraint of this.constraints) Object.assign(schema, constraint.schema);
    if (this.hasDefault && this.defaultValue !== undefined) schema.default = this.defaultValue;
    if (this.description) schema.description = this.description;
    return schema;
  }

  protected absent(name: string): T {
    if (this.hasDefault) return this.defaultValue as T;
    throw new ArgError(name, `missing required argument '${name}'`);
  }

  /** A copy of this spec that uses `value` when the argument is absent (a client may leave it out). */
  default(value: T): this & Defaulted {
    const copy = Object.assign(Object.create(Object.getPrototypeOf(this)), this) as this;
    copy.hasDefault = true;
    copy.defaultValue = value;
    return copy as this & Defaulted;
  }

  /** A copy of this spec with a description (OpenAPI, MCP). */
  describe(text: string): this {
    const copy = Object.assign(Object.create(Object.getPrototypeOf(this)), this) as this;
    copy.description = text;
    return copy;
  }
}

const INT = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/** The spellings a query, path or form boolean accepts, exactly (OpenAPI documents them: src/openapi/parameters.ts). */
export const TRUE_SPELLINGS = ["true", "1", "yes", "on"] as const;
export const FALSE_SPELLINGS = ["false", "0", "no", "off"] as const;
const TRUE = new Set<string>(TRUE_SPELLINGS);
const FALSE = new Set<string>(FALSE_SPELLINGS);

/** `int` and `float`: the same conversion with a different syntax, range check and schema type. */
class NumberSpec extends ArgSpec<number> {
  constructor(
    readonly kind: "int" | "float",
    private readonly syntax: RegExp,
    private readonly inRange: (value: number) => boolean,
    private readonly noun: string,
  ) {
    super();
  }
  fromString(raw: string, name: string): number {
    const text = raw.trim();
    const value = Number(text);
    if (!this.syntax.test(text) || !this.inRange(value)) {
      throw new ArgError(name, `argument '${name}' must be ${this.noun}, got '${raw}'`);
    }
    return value;
  }
  protected convertJson(value: unknown, name: string): number {
    if (typeof value === "number" && this.inRange(value)) return value;
    throw new ArgError(name, `argument '${name}' must be ${this.noun}`);
  }
  protected baseSchema(): JsonSchema {
    return { type: this.kind === "int" ? "integer" : "number" };
  }
  /** The smallest value allowed (inclusive). */
  min(bound: number): this {
    return this.constrained({
      check: (v) => (v >= bound ? null : `must be at least ${bound}, got ${v}`),
      schema: { minimum: bound },
    });
  }
  /** The largest value allowed (inclusive). */
  max(bound: number): this {
    return this.constrained({
      check: (v) => (v <= bound ? null : `must be at most ${bound}, got ${v}`),
      schema: { maximum: bound },
    });
  }
  /** Only these values. */
  oneOf(values: readonly number[]): this {
    const allowed = new Set(values);
    return this.constrained({
      check: (v) => (allowed.has(v) ? null : `must be one of ${values.join(", ")}, got ${v}`),
      schema: { enum: [...values] },
    });
  }
}

class StrSpec extends ArgSpec<string> {
  readonly kind = "str";
  fromString(raw: string): string {
    return raw;
  }
  protected convertJson(value: unknown, name: string): string {
    if (typeof value === "string") return value;
    throw new ArgError(name, `argument '${name}' must be a string`);
  }
  protected baseSchema(): JsonSchema {
    return { type: "string" };
  }
  /** At least this many characters (UTF-16 code units, as JSON Schema's `minLength` counts code points; equal for BMP text). */
  minLength(bound: number): this {
    return this.constrained({
      check: (v) => ([...v].length >= bound ? null : `must be at least ${bound} characters long`),
      schema: { minLength: bound },
    });
  }
  /** At most this many characters. */
  maxLength(bound: number): this {
    return this.constrained({
      check: (v) => ([...v].length <= bound ? null : `must be at most ${bound} characters long`),
      schema: { maxLength: bound },
    });
  }
  /** Must match the regular expression (unanchored, as in JSON Schema: add `^…$` for a whole match). */
  pattern(regex: RegExp | string): this {
    const re = typeof regex === "string" ? new RegExp(regex, "u") : regex;
    if (re.global || re.sticky)
      throw new TypeError("pattern: a global or sticky RegExp keeps state between calls");
    return this.constrained({
      check: (v) => (re.test(v) ? null : `must match ${re.source}`),
      schema: { pattern: re.source },
    });
  }
  /** Only these values; the argument's type narrows to their union. */
  oneOf<const V extends string>(values: readonly V[]): StringArg<V> {
    const allowed = new Set<string>(values);
    return this.constrained({
      check: (v) => (allowed.has(v) ? null : `must be one of ${values.join(", ")}, got '${v}'`),
      schema: { enum: [...values] },
    }) as unknown as StringArg<V>;
  }
}

/**
 * Marks a spec that has a default, at the type level only: the handler always gets a value,
 * and a typed client (`webfw/client`) may leave the argument out.
 */
export interface Defaulted {
  readonly "~defaulted": true;
}

/** `t.str()` and its bounds; `oneOf` narrows `T` to the listed strings. */
export interface StringArg<T extends string = string> extends ArgSpec<T> {
  minLength(bound: number): this;
  maxLength(bound: number): this;
  pattern(regex: RegExp | string): this;
  oneOf<const V extends T>(values: readonly V[]): StringArg<V>;
}

class BoolSpec extends ArgSpec<boolean> {
  readonly kind = "bool";
  fromString(raw: string, name: string): boolean {
    // Exactly the documented spellings (no case folding, no trimming), so the document is exact.
    if (TRUE.has(raw)) return true;
    if (FALSE.has(raw)) return false;
    throw new ArgError(
      name,
      `argument '${name}' must be a boolean (true/false, 1/0, yes/no, on/off), got '${raw}'`,
    );
  }
  protected convertJson(value: unknown, name: string): boolean {
    if (typeof value === "boolean") return value;
    throw new ArgError(name, `argument '${name}' must be a boolean`);
  }
  protected baseSchema(): JsonSchema {
    return { type: "boolean" };
  }
}

class ListSpec<T> extends ArgSpec<T[]> {
  readonly kind = "list";
  constructor(readonly item: ArgSpec<T>) {
    super();
  }
  /** A repeated query parameter (`?tag=a&tag=b`); absent gives `[]` unless a default is set. */
  override parse(raw: readonly string[] | undefined, name: string): T[] {
    if (raw === undefined || raw.length === 0) return this.hasDefault ? (this.defaultValue as T[]) : [];
    return this.checked(
      raw.map((value) => this.item.parse([value], name)),
      name,
    );
  }
  /** At least this many items (a list with a minimum is required: absent is `[]`, which fails it). */
  minLength(bound: number): this {
    return this.constrained({
      check: (v) => (v.length >= bound ? null : `must have at least ${bound} item${bound === 1 ? "" : "s"}`),
      schema: { minItems: bound },
    });
  }
  /** At most this many items. */
  maxLength(bound: number): this {
    return this.constrained({
      check: (v) => (v.length <= bound ? null : `must have at most ${bound} item${bound === 1 ? "" : "s"}`),
      schema: { maxItems: bound },
    });
  }
  override get isOptional(): boolean {
    return true;
  }
  fromString(raw: string, name: string): T[] {
    return [this.item.fromString(raw, name)];
  }
  protected override absent(name: string): T[] {
    return this.hasDefault ? (this.defaultValue as T[]) : this.checked([], name);
  }
  protected override get convertsText(): boolean {
    return false;
  }
  protected convertJson(value: unknown, name: string, text: boolean): T[] {
    // A form field given once is one item.
    if (text && typeof value === "string") return [this.item.fromJson(value, name, true)];
    if (!Array.isArray(value)) throw new ArgError(name, `argument '${name}' must be an array`);
    return value.map((item, index) => this.item.fromJson(item, `${name}[${index}]`, text));
  }
  protected baseSchema(direction: Direction): JsonSchema {
    return { type: "array", items: this.item.jsonSchema(direction) };
  }
}

class OptionalSpec<T> extends ArgSpec<T | undefined> {
  readonly kind = "optional";
  constructor(readonly inner: ArgSpec<T>) {
    super();
  }
  override get isOptional(): boolean {
    return true;
  }
  override parse(raw: readonly string[] | undefined, name: string): T | undefined {
    if (raw === undefined || raw.length === 0) return this.hasDefault ? this.defaultValue : undefined;
    return this.inner.parse(raw, name);
  }
  fromString(raw: string, name: string): T | undefined {
    return this.inner.fromString(raw, name);
  }
  protected override absent(): T | undefined {
    return this.hasDefault ? this.defaultValue : undefined;
  }
  protected override get convertsText(): boolean {
    return false;
  }
  protected convertJson(value: unknown, name: string, text: boolean): T | undefined {
    if (value === null) return undefined;
    return this.inner.fromJson(value, name, text);
  }
  protected baseSchema(direction: Direction): JsonSchema {
    return this.inner.jsonSchema(direction);
  }
}

/** A query argument given as JSON text (`t.dict()`, `t.object()`), parsed as client data. */
function jsonArgument(raw: string, name: string): unknown {
  try {
    return parseClientJson(raw);
  } catch {
    throw new ArgError(name, `argument '${name}' must be a JSON object`);
  }
}

class DictSpec extends ArgSpec<Record<string, unknown>> {
  readonly kind = "dict";
  fromString(raw: string, name: string): Record<string, unknown> {
    return this.convertJson(jsonArgument(raw, name), name);
  }
  protected convertJson(value: unknown, name: string): Record<string, unknown> {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new ArgError(name, `argument '${name}' must be an object`);
    }
    return value as Record<string, unknown>;
  }
  protected baseSchema(): JsonSchema {
    return { type: "object" };
  }
}

export type ArgShape = Record<string, ArgSpec<unknown>>;

/** The value type of a shape: `{ id: t.int() }` gives `{ id: number }`; a Standard Schema gives its output. */
export type InferArgs<S> = {
  [K in keyof S]: S[K] extends ArgSpec<infer T>
    ? T
    : S[K] extends StandardSchemaV1<unknown, infer O>
      ? O
      : never;
};

/** Route `args`: `t` specs and Standard Schema validators (zod, valibot, …), by argument name. */
export type RouteArgShape = Record<string, ArgSpec<unknown> | StandardSchemaV1>;

export class ObjectSpec<S extends ArgShape> extends ArgSpec<InferArgs<S>> {
  readonly kind = "object";
  constructor(readonly shape: S) {
    super();
  }
  fromString(raw: string, name: string): InferArgs<S> {
    return this.convertJson(jsonArgument(raw, name), name, false);
  }
  protected convertJson(value: unknown, name: string, text: boolean): InferArgs<S> {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new ArgError(name, name ? `'${name}' must be an object` : "body must be a JSON object");
    }
    const source = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(this.shape)) {
      const spec = this.shape[key] as ArgSpec<unknown>;
      const path = name ? `${name}.${key}` : key;
      const converted = spec.fromJson(source[key], path, text);
      if (converted !== undefined) out[key] = converted;
    }
    return out as InferArgs<S>;
  }
  /**
   * Validates every field and collects all problems instead of stopping at the first. `text`: the
   * value is a form, whose fields are text converted as query values are.
   */
  validate(
    value: unknown,
    text = false,
  ): { value: InferArgs<S> } | { issues: { path: string; message: string }[] } {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return { issues: [{ path: "", message: "body must be a JSON object" }] };
    }
    const source = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    const issues: { path: string; message: string }[] = [];
    for (const key of Object.keys(this.shape)) {
      try {
        const converted = (this.shape[key] as ArgSpec<unknown>).fromJson(source[key], key, text);
        if (converted !== undefined) out[key] = converted;
      } catch (error) {
        if (!(error instanceof ArgError)) throw error;
        issues.push({ path: error.argument, message: error.message });
      }
    }
    return issues.length > 0 ? { issues } : { value: out as InferArgs<S> };
  }
  protected baseSchema(direction: Direction): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [key, spec] of Object.entries(this.shape)) {
      properties[key] = spec.jsonSchema(direction);
      // A handler's value always has its defaulted and list fields; only `t.optional` ones may be missing.
      const mayBeMissing = direction === "output" ? spec.kind === "optional" : spec.isOptional;
      if (!mayBeMissing) required.push(key);
    }
    return required.length > 0 ? { type: "object", properties, required } : { type: "object", properties };
  }
}

/** Builders for typed arguments (`args` route option, MCP tools, `t.object` bodies). */
export const t = {
  /** An integer; bounds: `.min(n)`, `.max(n)`, `.oneOf([…])`. */
  int: (): NumberArg => new NumberSpec("int", INT, Number.isSafeInteger, "an integer"),
  /** A finite number; bounds: `.min(n)`, `.max(n)`, `.oneOf([…])`. */
  float: (): NumberArg => new NumberSpec("float", FLOAT, Number.isFinite, "a number"),
  /** A string; bounds: `.minLength(n)`, `.maxLength(n)`, `.pattern(re)`, `.oneOf([…])`. */
  str: (): StringArg => new StrSpec() as unknown as StringArg,
  bool: (): ArgSpec<boolean> => new BoolSpec(),
  /** A repeated argument (`?tag=a&tag=b`); bounds: `.minLength(n)`, `.maxLength(n)` (item counts). */
  list: <T>(item: ArgSpec<T>): ListArg<T> => new ListSpec(item),
  optional: <T>(inner: ArgSpec<T>): ArgSpec<T | undefined> => new OptionalSpec(inner),
  dict: (): ArgSpec<Record<string, unknown>> => new DictSpec(),
  object: <S extends ArgShape>(shape: S): ObjectSpec<S> => new ObjectSpec(shape),
};

/** `t.int()` / `t.float()` and their bounds. */
export interface NumberArg extends ArgSpec<number> {
  min(bound: number): this;
  max(bound: number): this;
  oneOf(values: readonly number[]): this;
}

/** `t.list(item)` and its bounds. */
export interface ListArg<T> extends ArgSpec<T[]> {
  minLength(bound: number): this;
  maxLength(bound: number): this;
}

/** JSON Schema of a whole argument shape (MCP `inputSchema`, OpenAPI request bodies). */
export function shapeSchema(shape: ArgShape): JsonSchema {
  return t.object(shape).jsonSchema();
}
