/**
 * A `t` spec compiled, once per route at start, into a function that checks a
 * handler's value against it and keeps only what it declares
 * (docs/responses.md, "Response contracts"): an object keeps the properties
 * of its shape (recursively, through lists and optionals), so a returned
 * database row cannot leak a column the contract does not name. Stricter than
 * reading input: nothing is converted (`"12"` is not an int here), because a
 * contract describes what the client will receive.
 */
import type { JsonSchema } from "../args/json-schema.ts";
import { ArgError, type ArgSpec, ObjectSpec } from "../args/t.ts";

/** Where a mismatch is told: it throws (mode "fail") or records and lets the check go on (mode "log"). */
export interface MismatchReport {
  mismatch(path: string, expected: string): void;
}

/** Checks `value` at `path` and returns what is sent; `undefined` means "leave the property out". */
export type ValueCheck = (value: unknown, path: string, report: MismatchReport) => unknown;

/** The check of `spec`. */
export function compileSpec(spec: ArgSpec<unknown>): ValueCheck {
  const base = baseCheck(spec);
  const bounds = boundsCheck(spec);
  if (bounds === null) return base;
  return (value, path, report) => {
    const out = base(value, path, report);
    const problem = out === undefined ? null : bounds(out);
    if (problem !== null) report.mismatch(path, problem);
    return out;
  };
}

/** `JSON.stringify` calls `toJSON` (a `Date`, a class that shapes itself): the check sees what the client will. */
function jsonForm(value: unknown): unknown {
  if (typeof value === "object" && value !== null) {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return toJSON.call(value);
  }
  return value;
}

function join(path: string, key: string | number): string {
  return path === "" ? String(key) : `${path}.${key}`;
}

function typed(test: (value: unknown) => boolean, expected: string): ValueCheck {
  return (value, path, report) => {
    const json = jsonForm(value);
    if (!test(json)) report.mismatch(path, expected);
    return json;
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function baseCheck(spec: ArgSpec<unknown>): ValueCheck {
  if (spec instanceof ObjectSpec) return objectCheck(spec);
  switch (spec.kind) {
    case "int":
      return typed((v) => typeof v === "number" && Number.isSafeInteger(v), "an integer");
    case "float":
      return typed((v) => typeof v === "number" && Number.isFinite(v), "a number");
    case "str":
      return typed((v) => typeof v === "string", "a string");
    case "bool":
      return typed((v) => typeof v === "boolean", "a boolean");
    // No shape to keep to: the object is sent as it is.
    case "dict":
      return typed(isObject, "an object");
    case "list":
      return listCheck(compileSpec((spec as unknown as { item: ArgSpec<unknown> }).item));
    case "optional":
      return optionalCheck(compileSpec((spec as unknown as { inner: ArgSpec<unknown> }).inner));
    default:
      return convertedCheck(spec);
  }
}

function objectCheck(spec: ObjectSpec<Record<string, ArgSpec<unknown>>>): ValueCheck {
  const fields = Object.entries(spec.shape).map(([key, field]) => ({
    key,
    check: compileSpec(field),
    optional: field.isOptional,
  }));
  return (value, path, report) => {
    const json = jsonForm(value);
    if (!isObject(json)) {
      report.mismatch(path, "an object");
      return json;
    }
    // Only the declared properties are copied: anything else the handler's value carries stays here.
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      const raw = json[field.key];
      if (raw === undefined) {
        if (!field.optional) report.mismatch(join(path, field.key), "a value (the property is required)");
        continue;
      }
      const checked = field.check(raw, join(path, field.key), report);
      if (checked !== undefined) out[field.key] = checked;
    }
    return out;
  };
}

function listCheck(item: ValueCheck): ValueCheck {
  return (value, path, report) => {
    const json = jsonForm(value);
    if (!Array.isArray(json)) {
      report.mismatch(path, "an array");
      return json;
    }
    const out = new Array<unknown>(json.length);
    for (let i = 0; i < json.length; i++) {
      const checked = item(json[i], join(path, i), report);
      // JSON has no hole: an absent optional item is sent as null, as JSON.stringify would.
      out[i] = checked === undefined ? null : checked;
    }
    return out;
  };
}

/** `t.optional(x)`: absent, or `null` (which `t` reads as absent, too), is left out of the object. */
function optionalCheck(inner: ValueCheck): ValueCheck {
  return (value, path, report) =>
    value === undefined || value === null ? undefined : inner(value, path, report);
}

/** A spec kind this module does not know: its own JSON conversion decides, and its result is sent. */
function convertedCheck(spec: ArgSpec<unknown>): ValueCheck {
  return (value, path, report) => {
    try {
      return spec.fromJson(value, path);
    } catch (error) {
      if (!(error instanceof ArgError)) throw error;
      // The error's message may quote the value: the report names the kind only.
      report.mismatch(path, `a valid ${spec.kind}`);
      return value;
    }
  };
}

/** The bounds a spec declares (read from its JSON Schema, so every `t` bound is covered), or null. */
function boundsCheck(spec: ArgSpec<unknown>): ((value: unknown) => string | null) | null {
  if (!["int", "float", "str", "list"].includes(spec.kind)) return null;
  const schema = spec.jsonSchema() as JsonSchema & Record<string, unknown>;
  const checks: ((value: unknown) => string | null)[] = [];
  const num = (key: string) => (typeof schema[key] === "number" ? (schema[key] as number) : undefined);
  const minimum = num("minimum");
  const maximum = num("maximum");
  const minLength = num("minLength");
  const maxLength = num("maxLength");
  const minItems = num("minItems");
  const maxItems = num("maxItems");
  if (minimum !== undefined)
    checks.push((v) => (typeof v === "number" && v < minimum ? `at least ${minimum}` : null));
  if (maximum !== undefined)
    checks.push((v) => (typeof v === "number" && v > maximum ? `at most ${maximum}` : null));
  if (Array.isArray(schema.enum)) {
    const allowed = new Set<unknown>(schema.enum);
    checks.push((v) => (allowed.has(v) ? null : "one of the declared values"));
  }
  // Code points, as `t.str().minLength()` counts them.
  if (minLength !== undefined)
    checks.push((v) =>
      typeof v === "string" && [...v].length < minLength ? `at least ${minLength} characters` : null,
    );
  if (maxLength !== undefined)
    checks.push((v) =>
      typeof v === "string" && [...v].length > maxLength ? `at most ${maxLength} characters` : null,
    );
  if (typeof schema.pattern === "string") {
    const re = new RegExp(schema.pattern, "u");
    checks.push((v) =>
      typeof v === "string" && !re.test(v) ? `a string matching /${schema.pattern}/` : null,
    );
  }
  if (minItems !== undefined)
    checks.push((v) => (Array.isArray(v) && v.length < minItems ? `at least ${minItems} items` : null));
  if (maxItems !== undefined)
    checks.push((v) => (Array.isArray(v) && v.length > maxItems ? `at most ${maxItems} items` : null));
  if (checks.length === 0) return null;
  return (value) => {
    for (const check of checks) {
      const problem = check(value);
      if (problem !== null) return problem;
    }
    return null;
  };
}
