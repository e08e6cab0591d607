import { ArgError } from "../args/t.ts";
import { JSON_UTF8, TEXT_PLAIN } from "../http/media-type.ts";
import type { DispatchContext } from "../http/request-context.ts";
import type * as ProblemDetails from "../problem/details.ts";
import type * as ProblemFromError from "../problem/from-error.ts";
import type { ProblemSource } from "../problem/from-error.ts";
import { HttpError, ValidationError } from "./errors.ts";
import { Response } from "./response.ts";

type WebResponse = globalThis.Response;

/** A plain-text error response (docs/errors.md: every built-in error is text/plain). */
export function textResponse(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): WebResponse {
  return new globalThis.Response(status === 204 || status === 304 ? null : message, {
    status,
    headers: { ...headers, "content-type": TEXT_PLAIN },
  });
}

/** Logs an unexpected error: `raw` names the request, `context` its span (src/http/request-context.ts). */
export type ErrorLogger = (error: unknown, raw: globalThis.Request, context: DispatchContext | null) => void;

/** How built-in errors are written: plain text (the spec's default) or RFC 9457 problem details. */
export type ErrorFormat = "text" | "problem";

export interface ErrorResponseOptions {
  log: ErrorLogger;
  /** Show the stack of a 500 (local development only). */
  dev: boolean;
  format: ErrorFormat;
}

/**
 * The default answer to an error: its own status for HTTP errors, 400 for
 * typed-argument errors, 422 for body validation, else 500 with nothing of the
 * error shown (the stack goes to the log; with `dev` it is shown, for local
 * debugging only). As text, or as `application/problem+json`.
 *
 * Made as a webfw `Response`: the after-middlewares take it as it is, and the
 * one conversion to a Web response happens when they are done.
 */
export function defaultErrorAnswer(
  error: unknown,
  request: ProblemSource,
  options: ErrorResponseOptions,
): Response {
  const expected = error instanceof HttpError || error instanceof ArgError;
  if (!expected) options.log(error, request.raw, request.context ?? null);
  if (options.format === "problem") {
    // Problem details load with the first error an app that uses them answers (start-up, docs/performance.md).
    const { problemOf } = require("../problem/from-error.ts") as typeof ProblemFromError;
    const { PROBLEM_CONTENT_TYPE } = require("../problem/details.ts") as typeof ProblemDetails;
    const problem = problemOf(error, request, options.dev);
    const headers = error instanceof HttpError ? error.headers : {};
    return new Response(
      problem.status,
      { ...headers, "content-type": PROBLEM_CONTENT_TYPE },
      JSON.stringify(problem),
    );
  }
  if (error instanceof ValidationError) {
    const body = JSON.stringify({ detail: error.message, issues: error.issues });
    return new Response(422, { "content-type": JSON_UTF8 }, body);
  }
  if (error instanceof HttpError) return textAnswer(error.status, error.message, error.headers);
  if (error instanceof ArgError) return textAnswer(400, error.message);
  const detail = options.dev && error instanceof Error ? `\n\n${error.stack ?? error.message}` : "";
  return textAnswer(500, `Internal Server Error${detail}`);
}

/** `defaultErrorAnswer` as the Web response Bun sends (no after-middlewares to run). */
export function defaultErrorResponse(
  error: unknown,
  request: ProblemSource,
  options: ErrorResponseOptions,
): WebResponse {
  return defaultErrorAnswer(error, request, options).toWeb();
}

function textAnswer(status: number, message: string, headers: Record<string, string> = {}): Response {
  const noBody = status === 204 || status === 304;
  return new Response(status, { ...headers, "content-type": TEXT_PLAIN }, noBody ? "" : message);
}
