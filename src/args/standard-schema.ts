/**
 * The Standard Schema v1 interface (standardschema.dev), implemented by zod,
 * valibot, arktype and others. Written out here as the project recommends,
 * so that no validator library is a dependency.
 */
import type { JsonSchema } from "./json-schema.ts";

export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return typeof value === "object" && value !== null && "~standard" in value;
}

/** A dotted path for an issue (`items.0.name`), for 422 bodies. */
export function issuePath(issue: StandardIssue): string {
  return (issue.path ?? []).map((part) => String(typeof part === "object" ? part.key : part)).join(".");
}

/**
 * The Standard JSON Schema extension (standardschema.dev/json-schema): zod ≥ 4.2,
 * arktype and others put a converter beside `validate` on `~standard`. Typed
 * here so that no validator library is imported at run time.
 */
interface JsonSchemaConverter {
  input?: (options: { target: string; libraryOptions?: Record<string, unknown> }) => unknown;
  output?: (options: { target: string; libraryOptions?: Record<string, unknown> }) => unknown;
}

export type Direction = "input" | "output";

/** The JSON Schema a validator gives of itself (`input` or `output` side), or null when it cannot. */
export function standardJsonSchema(schema: StandardSchemaV1, direction: Direction): JsonSchema | null {
  const standard = schema["~standard"] as StandardSchemaV1["~standard"] & {
    jsonSchema?: JsonSchemaConverter;
  };
  const converter = standard.jsonSchema?.[direction];
  const attempts: (() => unknown)[] = [];
  if (typeof converter === "function") {
    const call = converter.bind(standard.jsonSchema);
    // zod refuses types JSON Schema cannot express unless told to emit `{}` for them.
    attempts.push(() => call({ target: "draft-2020-12", libraryOptions: { unrepresentable: "any" } }));
    attempts.push(() => call({ target: "draft-2020-12" }));
  }
  // Older zod 4 releases and arktype expose a method instead of the extension.
  for (const method of ["toJSONSchema", "toJsonSchema"]) {
    const fn = (schema as unknown as Record<string, unknown>)[method];
    if (typeof fn === "function") attempts.push(() => fn.call(schema));
  }
  for (const attempt of attempts) {
    try {
      const result = attempt();
      if (typeof result === "object" && result !== null && !Array.isArray(result))
        return result as JsonSchema;
    } catch {
      // Try the next way; a schema with no JSON Schema form documents as "any".
    }
  }
  return null;
}
