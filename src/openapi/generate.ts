import type { AppState } from "../app-state.ts";
import type { JsonSchema } from "../args/json-schema.ts";
import type { ArgSpec } from "../args/t.ts";
import type { AuthenticationHandler, OpenApiSecurityScheme } from "../auth/handler.ts";
import { responseDocOf } from "../contracts/declared.ts";
import { PROBLEM_SCHEMA, PROBLEM_SCHEMA_NAME, problemContent } from "../problem/openapi.ts";
import { patternParams, type RouteRecord } from "../router/route.ts";
import type { RouterBase } from "../router/router-base.ts";
import { appPackageInfo } from "./package-info.ts";
import { SchemaRegistry, toJsonSchema } from "./schema.ts";
import type { OpenApiDocument, ResolvedOpenApiOptions, ResponseDoc, SchemaSource } from "./types.ts";

/** OpenAPI has no `connect` operation; CONNECT routes are left out of the document. */
const DOCUMENTED_METHODS = new Set(["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"]);
const STATUS_KEY = /^(default|[1-5](\d\d|XX))$/;
/** The scheme of routes whose handler is unknown here (a start without one fails anyway, src/plan/plan.ts). */
const BEARER: OpenApiSecurityScheme = {
  name: "bearerAuth",
  scheme: { type: "http", scheme: "bearer", description: "`Authorization: Bearer <token>`" },
};

const VALIDATION_ERROR: JsonSchema = {
  type: "object",
  description: "The body did not match the route's `body` schema.",
  properties: {
    detail: { type: "string" },
    issues: {
      type: "array",
      items: {
        type: "object",
        properties: { path: { type: "string" }, message: { type: "string" } },
        required: ["path", "message"],
      },
    },
  },
  required: ["detail", "issues"],
};

interface PlacedRoute {
  route: RouteRecord;
  /** Routers from the app down to the one that registered the route. */
  chain: RouterBase[];
}

/** Builds the OpenAPI 3.1 document of every route of `app` (except those with `includeInSchema: false`). */
export function generateDocument(app: AppState, options: ResolvedOpenApiOptions): OpenApiDocument {
  const registry = new SchemaRegistry();
  const paths: Record<string, Record<string, unknown>> = {};
  const tagNames: string[] = [];
  const usedIds = new Set<string>();
  // Each protecting handler names its own scheme (bearer JWT, http basic, …): AuthenticationHandler.securityScheme.
  const securitySchemes: Record<string, Record<string, unknown>> = {};

  for (const { route, chain } of placedRoutes(app, [app])) {
    if (route.options.includeInSchema === false || !DOCUMENTED_METHODS.has(route.method)) continue;
    const where = `${route.method} ${route.path}`;
    const operationId = uniqueId(route, usedIds);
    const tags = routeTags(route, chain, where);
    for (const tag of tags) if (!tagNames.includes(tag)) tagNames.push(tag);
    const operation: Record<string, unknown> = {};
    if (tags.length > 0) operation.tags = tags;
    copyString(route.options.summary, "summary", operation, where);
    copyString(route.options.description, "description", operation, where);
    operation.operationId = operationId;
    const parameters = routeParameters(route);
    if (parameters.length > 0) operation.parameters = parameters;
    if (route.options.body === "stream") {
      // A streamed upload (request.parts(), docs/uploads.md): any fields and files.
      operation.requestBody = {
        required: true,
        content: {
          "multipart/form-data": {
            schema: { type: "object", additionalProperties: { type: "string", format: "binary" } },
          },
        },
      };
    } else if (route.options.body !== undefined && route.options.body !== null) {
      operation.requestBody = {
        required: true,
        content: {
          "application/json": {
            schema: toJsonSchema(route.options.body as SchemaSource, registry, `${operationId}_body`),
          },
        },
      };
    }
    operation.responses = routeResponses(
      route,
      registry,
      operationId,
      where,
      app.config.errors === "problem",
      isRateLimited(chain, route),
    );
    if (route.options.authRequired === true) {
      const { name, scheme } = nearestAuth(chain)?.securityScheme ?? BEARER;
      operation.security = [{ [name]: [] }];
      securitySchemes[name] = scheme;
    }
    if (route.options.deprecated === true) operation.deprecated = true;
    const pathKey = openApiPath(route.path);
    paths[pathKey] ??= {};
    (paths[pathKey] as Record<string, unknown>)[route.method.toLowerCase()] = operation;
  }

  const pkg =
    options.title === undefined || options.version === undefined ? appPackageInfo(app.mainFile) : {};
  const info: OpenApiDocument["info"] = {
    title: options.title ?? pkg.name ?? "API",
    version: options.version ?? pkg.version ?? "0.0.0",
  };
  if (options.description !== undefined) info.description = options.description;
  const document: OpenApiDocument = { openapi: "3.1.0", info, paths };
  if (tagNames.length > 0) document.tags = tagNames.map((name) => ({ name }));
  const components: Record<string, Record<string, unknown>> = {};
  if (Object.keys(registry.schemas).length > 0) components.schemas = registry.schemas;
  if (Object.keys(securitySchemes).length > 0) components.securitySchemes = securitySchemes;
  if (Object.keys(components).length > 0) document.components = components;
  return document;
}

function placedRoutes(router: RouterBase, chain: RouterBase[]): PlacedRoute[] {
  return [
    ...router.routes.map((route) => ({ route, chain })),
    ...router.children.flatMap((child) => placedRoutes(child, [...chain, child])),
  ];
}

/** The authentication of the innermost router that configured one (as src/plan/tree.ts finds it). */
function nearestAuth(chain: RouterBase[]): AuthenticationHandler | null {
  for (let i = chain.length - 1; i >= 0; i--) {
    const handler = (chain[i] as RouterBase).authHandler;
    if (handler !== null) return handler;
  }
  return null;
}

/** The innermost rate-limit declaration of the route (its own option, else its routers') is not `false`. */
function isRateLimited(chain: RouterBase[], route: RouteRecord): boolean {
  const declarations = [...chain.map((router) => router.rateLimitSetting), route.options.rateLimit];
  const innermost = declarations.filter((setting) => setting !== undefined).at(-1);
  return innermost !== undefined && innermost !== false;
}

/** `/users/:id/*rest` → `/users/{id}/{rest}`. */
export function openApiPath(pattern: string): string {
  return pattern
    .split("/")
    .map((segment) =>
      segment.startsWith(":") || segment.startsWith("*") ? `{${segment.slice(1)}}` : segment,
    )
    .join("/");
}

/** `GET /users/:id` → `get_users_id`: stable, readable, unique in the document. */
function uniqueId(route: RouteRecord, used: Set<string>): string {
  const words = route.path
    .split("/")
    .map((segment) => segment.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_+|_+$/g, ""));
  const stem = [route.method.toLowerCase(), ...words.filter((word) => word !== "")].join("_");
  const base = stem === route.method.toLowerCase() ? `${stem}_root` : stem;
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base}_${n}`;
  used.add(id);
  return id;
}

/** The innermost router prefix (without its leading slash), then the route's own `tags`. */
function routeTags(route: RouteRecord, chain: RouterBase[], where: string): string[] {
  const tags: string[] = [];
  for (let i = chain.length - 1; i > 0; i--) {
    const prefix = (chain[i] as RouterBase).prefix;
    if (prefix !== "") {
      tags.push(prefix.replace(/^\/+/, ""));
      break;
    }
  }
  const own = route.options.tags;
  if (own !== undefined) {
    if (!Array.isArray(own) || own.some((tag) => typeof tag !== "string")) {
      throw new TypeError(`tags of ${where} must be an array of strings`);
    }
    for (const tag of own) if (!tags.includes(tag)) tags.push(tag);
  }
  return tags;
}

function copyString(value: unknown, key: string, into: Record<string, unknown>, where: string): void {
  if (value === undefined) return;
  if (typeof value !== "string") throw new TypeError(`${key} of ${where} must be a string`);
  into[key] = value;
}

/** Path parameters (always required, typed by `args` when it names them), then `args` read from the query. */
function routeParameters(route: RouteRecord): Record<string, unknown>[] {
  const args = (route.options.args ?? {}) as Record<string, ArgSpec<unknown>>;
  const pathNames = patternParams(route.path);
  const parameters: Record<string, unknown>[] = [];
  for (const name of pathNames) {
    const spec = args[name];
    const wildcard = route.path.split("/").includes(`*${name}`);
    const parameter = describeParameter(name, "path", spec ? spec.jsonSchema() : { type: "string" }, true);
    if (wildcard && parameter.description === undefined) {
      parameter.description = "The rest of the path (may contain `/`).";
    }
    parameters.push(parameter);
  }
  for (const [name, spec] of Object.entries(args)) {
    if (pathNames.includes(name)) continue;
    parameters.push(describeParameter(name, "query", spec.jsonSchema(), !spec.isOptional));
  }
  return parameters;
}

function describeParameter(name: string, where: "path" | "query", schema: JsonSchema, required: boolean) {
  const { description, ...rest } = schema;
  const parameter: Record<string, unknown> = { name, in: where };
  if (typeof description === "string") parameter.description = description;
  if (required) parameter.required = true;
  // Objects in the query string are JSON text (`t.dict()`, `t.object()`), which OpenAPI says with `content`.
  if (rest.type === "object") parameter.content = { "application/json": { schema: rest } };
  else parameter.schema = rest;
  return parameter;
}

/** Declared responses, plus the ones the framework itself may send for this route (400, 401, 422). */
function routeResponses(
  route: RouteRecord,
  registry: SchemaRegistry,
  operationId: string,
  where: string,
  problems: boolean,
  rateLimited: boolean,
): Record<string, unknown> {
  const declared = (route.options.responses ?? {}) as Record<string, string | ResponseDoc>;
  if (typeof declared !== "object" || declared === null || Array.isArray(declared)) {
    throw new TypeError(`responses of ${where} must be an object keyed by status code`);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, doc] of Object.entries(declared)) {
    if (!STATUS_KEY.test(status)) {
      throw new TypeError(
        `responses of ${where}: '${status}' is not a status code (100-599, '2XX' or 'default')`,
      );
    }
    responses[status] = responseObject(
      responseDocOf(status, doc),
      registry,
      `${operationId}_${status}`,
      `${where} response ${status}`,
    );
  }
  if (!Object.keys(responses).some((status) => status.startsWith("2") || status === "default")) {
    responses["200"] = { description: "Successful response" };
  }
  // With `errors: "problem"` every error webfw writes is application/problem+json (src/problem/).
  const text = problems
    ? problemContent(registry.fixed(PROBLEM_SCHEMA_NAME, PROBLEM_SCHEMA))
    : { "text/plain": { schema: { type: "string" } } };
  const hasArgs = route.options.args !== undefined && Object.keys(route.options.args).length > 0;
  const hasBody =
    route.options.body !== undefined && route.options.body !== null && route.options.body !== "stream";
  if ((hasArgs || hasBody) && !("400" in responses)) {
    const reasons = [
      hasArgs ? "a missing or invalid argument" : "",
      hasBody ? "a body that is not valid JSON" : "",
    ];
    responses["400"] = {
      description: `Bad request: ${reasons.filter(Boolean).join(", or ")}`,
      content: text,
    };
  }
  if (route.options.authRequired === true && !("401" in responses)) {
    responses["401"] = { description: "Not authenticated", content: text };
  }
  if (hasBody && !("422" in responses)) {
    responses["422"] = {
      description: "The body does not match the schema",
      content: problems
        ? text
        : { "application/json": { schema: { $ref: registry.fixed("ValidationError", VALIDATION_ERROR) } } },
    };
  }
  if (rateLimited && !("429" in responses)) {
    responses["429"] = {
      description: "Too many requests from this client (docs/rate-limiting.md)",
      headers: {
        "Retry-After": { description: "Seconds until the window resets", schema: { type: "integer" } },
        RateLimit: {
          description: "IETF RateLimit field: remaining quota and reset",
          schema: { type: "string" },
        },
        "RateLimit-Policy": {
          description: "IETF RateLimit-Policy field: quota and window",
          schema: { type: "string" },
        },
      },
      content: text,
    };
  }
  if (problems && !("500" in responses)) {
    responses["500"] = {
      description: "Internal Server Error (nothing of the error is shown)",
      content: text,
    };
  }
  return responses;
}

function responseObject(
  doc: unknown,
  registry: SchemaRegistry,
  hint: string,
  where: string,
): Record<string, unknown> {
  if (typeof doc === "string") return { description: doc };
  if (typeof doc !== "object" || doc === null || typeof (doc as ResponseDoc).description !== "string") {
    throw new TypeError(`${where} must be a description string or { description, contentType?, schema? }`);
  }
  const { description, contentType, schema } = doc as ResponseDoc;
  const out: Record<string, unknown> = { description };
  if (contentType === undefined && schema === undefined) return out;
  if (contentType !== undefined && (typeof contentType !== "string" || !contentType.includes("/"))) {
    throw new TypeError(`${where}: contentType must be a media type such as 'application/json'`);
  }
  const media = schema === undefined ? {} : { schema: toJsonSchema(schema, registry, hint, "output") };
  out.content = { [contentType ?? "application/json"]: media };
  return out;
}
