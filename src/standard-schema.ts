/**
 * The Standard Schema v1 interface (standardschema.dev), implemented by zod,
 * valibot, arktype and others. Written out here as the project recommends,
 * so that no validator library is a dependency.
 */
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
