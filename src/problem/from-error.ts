/**
 * What a thrown value becomes as a problem details object (RFC 9457): the
 * `errors: "problem"` half of the error contract (src/response/error-response.ts
 * has the plain-text half). Pure: logging a 500 is the caller's job.
 */

import { ArgError } from "../args/t.ts";
import type { DispatchContext } from "../http/request-context.ts";
import { requestPath } from "../http/request-target.ts";
import { defaultReason, HttpError, ValidationError } from "../response/errors.ts";
import { type ProblemDetails, type ProblemIssue, pointerOf } from "./details.ts";

/** What of the request a problem names: its path (`instance`), its id and which params were path params. */
export interface ProblemSource {
  raw: globalThis.Request;
  pathParams: Record<string, string>;
  id: string;
  /** The request's context (src/http/request-context.ts), when it has one. */
  context?: DispatchContext | null;
}

const ABOUT_BLANK = "about:blank";

export function problemOf(error: unknown, request: ProblemSource, dev: boolean): ProblemDetails {
  if (error instanceof ValidationError) {
    const errors = error.issues.map(
      (issue): ProblemIssue => ({ detail: issue.message, location: "body", pointer: pointerOf(issue.path) }),
    );
    return base(422, request, {
      detail: `The body has ${errors.length} invalid value${errors.length === 1 ? "" : "s"}`,
      errors,
    });
  }
  if (error instanceof HttpError) {
    const type = error.type ?? ABOUT_BLANK;
    const problem = base(error.status, request, {
      type,
      // RFC 9457 §4.2.1: with about:blank the title is the reason phrase.
      title: error.title ?? defaultReason(error.status),
      detail: error.detail,
      instance: error.instance,
    });
    return error.extensions ? { ...error.extensions, ...problem } : problem;
  }
  if (error instanceof ArgError) {
    // A typed argument comes from the path parameter of its name, else from the query (docs/requests.md).
    const location = Object.hasOwn(request.pathParams, error.argument) ? "path" : "query";
    return base(400, request, {
      detail: error.message,
      errors: [{ detail: error.message, location, name: error.argument }],
    });
  }
  // Never the message of an unexpected error (it may hold secrets); the stack only in dev mode.
  const detail = dev && error instanceof Error ? (error.stack ?? error.message) : undefined;
  return base(500, request, { detail });
}

function base(status: number, request: ProblemSource, fields: Partial<ProblemDetails>): ProblemDetails {
  const problem: ProblemDetails = {
    type: fields.type ?? ABOUT_BLANK,
    title: fields.title ?? defaultReason(status),
    status,
  };
  if (fields.detail !== undefined) problem.detail = fields.detail;
  problem.instance = fields.instance ?? requestPath(request.raw.url);
  problem.requestId = request.id;
  if (fields.errors !== undefined) problem.errors = fields.errors;
  return problem;
}
