import type { JsonSchema } from "../args/json-schema.ts";
import type { StandardSchemaV1 } from "../args/standard-schema.ts";
import type { ArgSpec } from "../args/t.ts";

/** The `openapi` option of `new Webfw(path, { openapi })`; `false` turns `/openapi.json` and `/docs` off. */
export interface OpenApiOptions {
  /** `info.title`; default: the `name` of the app's package.json, else `"API"`. */
  title?: string;
  /** `info.version`; default: the `version` of the app's package.json, else `"0.0.0"`. */
  version?: string;
  /** `info.description` (CommonMark). */
  description?: string;
  /**
   * A ready-made OpenAPI document that replaces generation: the object itself, or
   * the path of a JSON file (relative paths are resolved from the app's main file).
   */
  document?: Record<string, unknown> | string;
  /** `servers` of the document; default `[{ url: "/" }]`: the origin the document is fetched from. */
  servers?: { url: string; description?: string }[];
  /** Where the document is served. Default `/openapi.json`. */
  path?: string;
  /** Where the interactive reference is served (its assets live under `<docsPath>/assets/`). Default `/docs`. */
  docsPath?: string;
  /**
   * The interactive reference at `docsPath`: `"swagger"` (default, Swagger UI) or `"scalar"`
   * (Scalar's API reference). Both are served from npm packages, with no CDN.
   */
  docsUi?: "swagger" | "scalar";
}

/** The options after validation: paths normalised, every field present or explicitly undefined. */
export interface ResolvedOpenApiOptions {
  title: string | undefined;
  version: string | undefined;
  description: string | undefined;
  document: Record<string, unknown> | string | undefined;
  servers: { url: string; description?: string }[] | undefined;
  path: string;
  docsPath: string;
  docsUi: "swagger" | "scalar";
}

/** What a schema may be given as in `responses`: a `t` spec, a Standard Schema validator, or plain JSON Schema. */
export type SchemaSource = ArgSpec<unknown> | StandardSchemaV1 | JsonSchema;

/**
 * One documented response of a route (`responses` option). A plain string is
 * shorthand for `{ description }` with no content.
 */
export interface ResponseDoc {
  description: string;
  /** Media type of the body, e.g. `application/json`, `text/plain`, `text/html`. */
  contentType?: string;
  /** Schema of the body; with no `contentType`, `application/json` is assumed. */
  schema?: SchemaSource;
  /** Headers of this answer: name to a description, or `{ description, schema }` (e.g. `Content-Disposition`). */
  headers?: Record<string, string | { description: string; schema?: JsonSchema }>;
}

/** An OpenAPI 3.1 document, loosely typed: it is produced here and serialised, never read back. */
export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  tags?: { name: string }[];
};
