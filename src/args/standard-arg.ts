import type { JsonSchema } from "./json-schema.ts";
import { isStandardSchema, type StandardSchemaV1, standardJsonSchema } from "./standard-schema.ts";
import { ArgError, ArgSpec } from "./t.ts";

/**
 * A Standard Schema validator (zod, valibot, arktype) used as a typed
 * argument (issue #14). A query or path argument arrives as text, so the
 * validator gets the last value as a string (or every value, when its JSON
 * Schema says `array`), `undefined` when absent: use the library's coercion
 * (`z.coerce.number()`) for numbers. Issues are a 400 naming the argument,
 * like a `t` spec's; its JSON Schema documents the parameter in OpenAPI.
 * Validation must be synchronous: `args` are checked before the handler on
 * the hot path, and an async refinement belongs in the handler or the body.
 */
export class StandardArgSpec<T> extends ArgSpec<T> {
  readonly kind = "standard";
  private readonly schema: JsonSchema;
  private readonly many: boolean;
  private readonly optional: boolean;

  constructor(
    private readonly validator: StandardSchemaV1<unknown, T>,
    private readonly where: string,
  ) {
    super();
    this.schema = standardJsonSchema(validator, "input") ?? {};
    delete this.schema.$schema;
    this.many = this.schema.type === "array";
    const probe = this.validate(undefined);
    this.optional = !("issues" in probe && probe.issues !== undefined);
  }

  override get isOptional(): boolean {
    return this.optional;
  }

  override parse(raw: readonly string[] | undefined, name: string): T {
    const value =
      raw === undefined || raw.length === 0 ? undefined : this.many ? [...raw] : raw[raw.length - 1];
    return this.run(value, name);
  }

  fromString(raw: string, name: string): T {
    return this.run(this.many ? [raw] : raw, name);
  }

  protected convertJson(value: unknown, name: string): T {
    return this.run(value, name);
  }

  protected override absent(name: string): T {
    return this.run(undefined, name);
  }

  protected baseSchema(): JsonSchema {
    return structuredClone(this.schema);
  }

  private run(value: unknown, name: string): T {
    const result = this.validate(value);
    if ("issues" in result && result.issues !== undefined) {
      const first = result.issues[0];
      throw new ArgError(name, `argument '${name}': ${first?.message ?? "invalid value"}`);
    }
    return this.checked((result as { value: T }).value, name);
  }

  private validate(value: unknown) {
    const result = this.validator["~standard"].validate(value);
    if (result instanceof Promise) {
      throw new TypeError(`${this.where}: asynchronous Standard Schema validation is not supported in args`);
    }
    return result;
  }
}

/**
 * Route `args` as webfw runs them: `t` specs as given, Standard Schema
 * validators wrapped; anything else is an error at registration.
 */
export function toArgSpecs(
  args: Record<string, unknown> | undefined,
  where: string,
): Record<string, ArgSpec<unknown>> | undefined {
  if (args === undefined) return undefined;
  const out: Record<string, ArgSpec<unknown>> = {};
  for (const [name, spec] of Object.entries(args)) {
    if (spec instanceof ArgSpec) out[name] = spec;
    else if (isStandardSchema(spec)) out[name] = new StandardArgSpec(spec, `args.${name} of ${where}`);
    else throw new TypeError(`args.${name} of ${where} is not a t.* spec or a Standard Schema validator`);
  }
  return out;
}
