/**
 * Response contracts at run time (docs/responses.md, "Response contracts"): a
 * route whose `responses` declare a `t` spec or a Standard Schema for a status
 * gets its handler wrapped, once at start, so that the value it returns for
 * that status is checked and cut down to what the schema declares before it
 * becomes JSON. Mode "fail": a mismatch is a 500 and an error log line; "log":
 * the log line, and the (stripped) value is sent; "off": no wrapper at all.
 * A route with no checkable schema is not wrapped either: nothing per request.
 */
import {
  isStandardSchema,
  issuePath,
  type StandardResult,
  standardJsonSchema,
} from "../args/standard-schema.ts";
import { ArgSpec } from "../args/t.ts";
import type { Request } from "../http/request.ts";
import { logger } from "../log/logger.ts";
import { JsonBody, json, Renderable } from "../response/bodies.ts";
import { isStatusPair } from "../response/convert.ts";
import { HttpError } from "../response/errors.ts";
import { Response } from "../response/response.ts";
import type { RouteRecord } from "../router/route.ts";
import { SseBody } from "../stream/sse.ts";
import { checkableSchema, type ResponseSchema } from "./declared.ts";
import { type ResponseCheckMode, responseCheckMode } from "./mode.ts";
import { compileStrip, type Strip } from "./schema-strip.ts";
import { compileSpec, type MismatchReport } from "./t-check.ts";

type RouteHandler = (request: Request) => unknown;
/** Checks one body; a Standard Schema may answer asynchronously. */
type BodyCheck = (body: unknown, report: MismatchReport) => unknown;

/** Thrown by the "fail" report at the first mismatch; never leaves this module. */
class ContractMismatch extends Error {
  constructor(
    readonly path: string,
    readonly expected: string,
  ) {
    super("response contract mismatch");
  }
}

/** Mode "fail": no allocation while the value matches. */
const FAIL: MismatchReport = {
  mismatch(path, expected) {
    throw new ContractMismatch(path, expected);
  },
};

/** Mode "log": the first mismatch is kept and the check goes on stripping the rest. */
class Recorder implements MismatchReport {
  first: ContractMismatch | null = null;
  count = 0;
  mismatch(path: string, expected: string): void {
    this.count++;
    this.first ??= new ContractMismatch(path, expected);
  }
}

/**
 * The wrapper that enforces `route`'s declared response schemas, or null when there is nothing
 * to enforce (no checkable schema, or mode "off"). `appMode` is the app's `responseCheck`.
 * Throws at start for an unknown mode.
 */
export function responseContract(
  route: Pick<RouteRecord, "method" | "path" | "options">,
  appMode: ResponseCheckMode,
): ((handler: RouteHandler) => RouteHandler) | null {
  const label = `${route.method} ${route.path}`;
  const mode =
    route.options.responseCheck === undefined
      ? appMode
      : responseCheckMode(route.options.responseCheck, `responseCheck of ${label}`);
  const responses = route.options.responses;
  if (mode === "off" || responses === undefined) return null;
  const exact = new Map<number, BodyCheck>();
  const classes = new Map<number, BodyCheck>();
  for (const [status, entry] of Object.entries(responses)) {
    const schema = checkableSchema(entry);
    if (schema === null) continue;
    if (/^[1-5]\d\d$/.test(status)) exact.set(Number(status), compileSchema(schema));
    else if (/^[1-5]XX$/i.test(status)) classes.set(Number(status[0]), compileSchema(schema));
  }
  if (exact.size === 0 && classes.size === 0) return null;
  const constant = route.options.const === true;
  const checkFor = (status: number) => exact.get(status) ?? classes.get(Math.floor(status / 100));

  const mismatched = (request: Request, status: number, mismatch: ContractMismatch, count: number) => {
    // The route and the place of the mismatch, never the value: it may be the very secret the contract keeps out.
    logger.error("response does not match the route's declared schema", {
      route: label,
      status,
      path: mismatch.path === "" ? "(the whole body)" : mismatch.path,
      expected: mismatch.expected,
      mismatches: count,
      mode,
      request_id: request.id,
    });
  };

  const run = (request: Request, status: number, body: unknown, rebuild: (body: unknown) => unknown) => {
    const check = checkFor(status);
    if (check === undefined) return undefined;
    if (mode === "fail") {
      const failed = (error: unknown): never => {
        if (!(error instanceof ContractMismatch)) throw error;
        mismatched(request, status, error, 1);
        // A const route runs once, at start: its mismatch stops the start, saying why.
        if (constant) {
          throw new Error(
            `${label}: its const answer does not match its declared response schema at '${error.path}' (expected ${error.expected})`,
          );
        }
        throw new HttpError(500, "Internal Server Error");
      };
      try {
        const out = check(body, FAIL);
        return out instanceof Promise ? out.then(rebuild, failed) : rebuild(out);
      } catch (error) {
        return failed(error);
      }
    }
    const recorder = new Recorder();
    const done = (out: unknown) => {
      if (recorder.first !== null) mismatched(request, status, recorder.first, recorder.count);
      return rebuild(out);
    };
    const out = check(body, recorder);
    return out instanceof Promise ? out.then(done) : done(out);
  };

  /** The value with its JSON body checked; the value itself when it is not a JSON answer or has no schema. */
  const apply = (request: Request, value: unknown): unknown => {
    if (typeof value === "number" || typeof value === "boolean")
      return run(request, 200, value, same) ?? value;
    if (typeof value !== "object" || value === null) return value;
    if (Array.isArray(value)) {
      if (!isStatusPair(value)) return run(request, 200, value, same) ?? value;
      const [body, status] = value as [unknown, number];
      if (!sentAsJson(body)) return value;
      return run(request, status, body, (out) => [out, status]) ?? value;
    }
    if (value instanceof JsonBody) {
      const { status } = value;
      return run(request, status, value.value, (out) => json(out, status)) ?? value;
    }
    return sentAsJson(value) ? (run(request, 200, value, same) ?? value) : value;
  };

  return (handler) => (request) => {
    const value = handler(request);
    return value instanceof Promise
      ? value.then((resolved) => apply(request, resolved))
      : apply(request, value);
  };
}

const same = (body: unknown) => body;

/**
 * Whether the handler's value becomes a JSON body (src/response/convert.ts): plain objects,
 * arrays, numbers, booleans. Responses, rendered bodies, bytes, streams and the
 * `{ statusCode, description }` dictionary are the handler choosing the answer itself.
 */
function sentAsJson(value: unknown): boolean {
  if (typeof value === "number" || typeof value === "boolean") return true;
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return true;
  return !(
    value instanceof globalThis.Response ||
    value instanceof Response ||
    value instanceof Renderable ||
    value instanceof Uint8Array ||
    value instanceof ArrayBuffer ||
    value instanceof Blob ||
    value instanceof ReadableStream ||
    value instanceof SseBody ||
    Symbol.asyncIterator in value ||
    (Symbol.iterator in value && typeof (value as { next?: unknown }).next === "function") ||
    ("statusCode" in value && "description" in value)
  );
}

/** One schema's check: a compiled `t` spec, or the Standard Schema's own `validate` and its output. */
function compileSchema(schema: ResponseSchema): BodyCheck {
  if (schema instanceof ArgSpec) {
    const check = compileSpec(schema);
    return (body, report) => check(body, "", report);
  }
  if (!isStandardSchema(schema))
    throw new TypeError("a response schema must be a t spec or a Standard Schema");
  let strip: Strip | null | undefined;
  const outcome = (result: StandardResult<unknown>, body: unknown, report: MismatchReport): unknown => {
    if (result.issues === undefined) return result.value;
    // Paths only: an issue's message may quote the value.
    for (const issue of result.issues) report.mismatch(issuePath(issue), "what the schema declares");
    // Mode "log" goes on: strip by the validator's own JSON Schema, made on the first failure.
    if (strip === undefined) {
      const described = standardJsonSchema(schema, "output");
      strip = described === null ? null : compileStrip(described);
    }
    return strip === null ? body : strip(body);
  };
  return (body, report) => {
    const result = schema["~standard"].validate(body);
    return result instanceof Promise
      ? result.then((settled) => outcome(settled, body, report))
      : outcome(result, body, report);
  };
}
