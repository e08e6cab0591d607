/**
 * The `responses` of an operation: the success the route answers with (declared,
 * from the `status` option, else `2XX` with whatever a value can become), every
 * error the framework itself may send for the route, and the errors the route
 * declares, each with the real content type of the app's error mode
 * (docs/openapi.md, "Responses").
 */
import type { JsonSchema } from "../args/json-schema.ts";
import { responseDocOf } from "../contracts/declared.ts";
import { PROBLEM_SCHEMA, PROBLEM_SCHEMA_NAME, problemContent } from "../problem/openapi.ts";
import type { RouteRecord } from "../router/route.ts";
import { BODY_METHODS } from "./request-body.ts";
import { type SchemaRegistry, toJsonSchema } from "./schema.ts";
import type { ResponseDoc } from "./types.ts";

const STATUS_KEY = /^(default|[1-5](\d\d|XX))$/;

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

/** What a handler's value may become when no schema says (src/response/convert.ts). */
const ANY_VALUE: Record<string, unknown> = {
  "application/json": { schema: {} },
  "text/plain": { schema: { type: "string" } },
  "*/*": { schema: {} },
};

const header = (description: string, schema: JsonSchema = { type: "string" }) => ({ description, schema });

/** What the route's situation adds to every operation (set by the document's generator). */
export interface RouteFacts {
  route: RouteRecord;
  operationId: string;
  where: string;
  problems: boolean;
  rateLimited: boolean;
  /** A handler time limit applies (the route's `timeoutMs`, else the app's). */
  timed: boolean;
  /** Headers every answer of this route carries (request ids, the app's response headers). */
  headers: Record<string, unknown>;
}

export function routeResponses(facts: RouteFacts, registry: SchemaRegistry): Record<string, unknown> {
  const { route, operationId, where, problems } = facts;
  const declared = (route.options.responses ?? {}) as Record<string, string | ResponseDoc>;
  if (typeof declared !== "object" || declared === null || Array.isArray(declared)) {
    throw new TypeError(`responses of ${where} must be an object keyed by status code`);
  }
  const errors = errorContent(problems, registry);
  const responses: Record<string, Record<string, unknown>> = {};
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
    // An error declared by its description is an HttpError the handler throws: the app's error body.
    if (/^[45]/.test(status) && responses[status].content === undefined) responses[status].content = errors;
  }
  addSuccess(responses, facts);
  for (const [status, response] of Object.entries(frameworkErrors(facts, errors, registry))) {
    responses[status] ??= response;
  }
  for (const response of Object.values(responses)) {
    if (Object.keys(facts.headers).length > 0)
      response.headers = { ...facts.headers, ...(response.headers ?? {}) };
  }
  return responses;
}

/** The declared success, else the `status` option's, else `2XX`. */
function addSuccess(responses: Record<string, Record<string, unknown>>, facts: RouteFacts): void {
  const status = facts.route.options.status;
  const successes = Object.keys(responses).filter((key) => /^[23]/.test(key) || key === "default");
  if (successes.length > 0) {
    const covered =
      status === undefined ||
      successes.some((key) => key === String(status) || key === `${String(status)[0]}XX`);
    if (!covered) {
      throw new TypeError(
        `${facts.where}: status ${status} is not among its documented responses (${successes.join(", ")})`,
      );
    }
    return;
  }
  if (status === undefined) {
    // 204 (nothing returned) has no body; a body under `2XX` would make an empty answer a violation.
    responses["204"] = { description: "No Content: the handler returned nothing" };
    responses["2XX"] = {
      description: "Success: 200 with the handler's value, or the status it chooses",
      content: ANY_VALUE,
    };
  } else if (status === 204 || status === 304 || status < 200) {
    responses[String(status)] = { description: STATUS_TEXT[status] ?? "No content" };
  } else {
    responses[String(status)] = { description: STATUS_TEXT[status] ?? "Success", content: ANY_VALUE };
  }
}

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  304: "Not Modified",
};

/** The body of every error webfw writes in the app's mode: problem details or plain text. */
function errorContent(problems: boolean, registry: SchemaRegistry): Record<string, unknown> {
  return problems
    ? problemContent(registry.fixed(PROBLEM_SCHEMA_NAME, PROBLEM_SCHEMA))
    : { "text/plain": { schema: { type: "string" } } };
}

/** The errors the framework itself may answer this route with. */
function frameworkErrors(
  facts: RouteFacts,
  errors: Record<string, unknown>,
  registry: SchemaRegistry,
): Record<string, Record<string, unknown>> {
  const { route, problems } = facts;
  const { args, body, authRequired } = route.options;
  const hasArgs = args !== undefined && Object.keys(args).length > 0;
  const streamed = body === "stream";
  const hasSchema = body !== undefined && body !== null && !streamed;
  const readsBody = BODY_METHODS.has(route.method) && !streamed;
  const out: Record<string, Record<string, unknown>> = {};
  const reasons = [
    "a malformed request target (such as a bad percent-escape)",
    hasArgs ? "a missing or invalid argument" : "",
    readsBody ? "a malformed body (JSON that does not parse, a broken form or multipart body)" : "",
    streamed ? "a malformed multipart upload (when the handler reads one)" : "",
  ].filter(Boolean);
  out["400"] = { description: `Bad request: ${reasons.join(", or ")}`, content: errors };
  if (authRequired === true) {
    out["401"] = {
      description: "Not authenticated",
      headers: { "WWW-Authenticate": header("The authentication scheme to use") },
      content: errors,
    };
  }
  if (readsBody) out["408"] = { description: "The body did not arrive in time", content: errors };
  if (readsBody || streamed) {
    out["413"] = { description: "The body (or a form field, part or upload) is too large", content: errors };
  }
  if (hasSchema || streamed) {
    out["415"] = {
      description: streamed
        ? "The body is not multipart/form-data"
        : "The body is not JSON nor a form (urlencoded or multipart)",
      headers: { "Accept-Post": header("The media types this route accepts") },
      content: errors,
    };
  }
  if (hasSchema) {
    out["422"] = {
      description: "The body does not match the schema",
      content: problems
        ? errors
        : { "application/json": { schema: { $ref: registry.fixed("ValidationError", VALIDATION_ERROR) } } },
    };
  }
  if (facts.rateLimited) {
    out["429"] = {
      description: "Too many requests from this client (docs/rate-limiting.md)",
      headers: {
        "Retry-After": header("Seconds until the window resets", { type: "integer" }),
        RateLimit: header("IETF RateLimit field: remaining quota and reset"),
        "RateLimit-Policy": header("IETF RateLimit-Policy field: quota and window"),
      },
      content: errors,
    };
  }
  out["500"] = { description: "Internal Server Error (nothing of the error is shown)", content: errors };
  const unavailable = [
    readsBody ? "too many request bodies in flight" : "",
    streamed ? "too many uploads in flight" : "",
    facts.timed ? "the handler did not finish in time" : "",
    facts.rateLimited ? "the rate limit cannot be checked" : "",
  ].filter(Boolean);
  if (unavailable.length > 0) {
    out["503"] = {
      description: `Service unavailable: ${unavailable.join(", or ")}`,
      headers: { "Retry-After": header("Seconds to wait before retrying", { type: "integer" }) },
      content: errors,
    };
  }
  return out;
}

function responseObject(
  doc: unknown,
  registry: SchemaRegistry,
  hint: string,
  where: string,
): Record<string, unknown> {
  if (typeof doc === "string") return { description: doc };
  if (typeof doc !== "object" || doc === null || typeof (doc as ResponseDoc).description !== "string") {
    throw new TypeError(
      `${where} must be a description string or { description, contentType?, schema?, headers? }`,
    );
  }
  const { description, contentType, schema, headers } = doc as ResponseDoc;
  const out: Record<string, unknown> = { description };
  if (headers !== undefined) out.headers = declaredHeaders(headers, where);
  if (contentType === undefined && schema === undefined) return out;
  if (contentType !== undefined && (typeof contentType !== "string" || !contentType.includes("/"))) {
    throw new TypeError(`${where}: contentType must be a media type such as 'application/json'`);
  }
  const media = schema === undefined ? {} : { schema: toJsonSchema(schema, registry, hint, "output") };
  out.content = { [contentType ?? "application/json"]: media };
  return out;
}

/** `headers: { "Content-Disposition": "Where to save it" }`: a description, or `{ description, schema? }`. */
function declaredHeaders(headers: unknown, where: string): Record<string, unknown> {
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) {
    throw new TypeError(`${where}: headers must be an object of header name to description`);
  }
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === "string") out[name] = header(value);
    else if (typeof value === "object" && value !== null && typeof value.description === "string") {
      out[name] = { description: value.description, schema: value.schema ?? { type: "string" } };
    } else
      throw new TypeError(`${where}: header '${name}' must be a description or { description, schema? }`);
  }
  return out;
}
