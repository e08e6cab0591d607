import { ArgError } from "../args/t.ts";
import { problemResponse } from "../problem/details.ts";
import { type ProblemSource, problemOf } from "../problem/from-error.ts";
import { HttpError, ValidationError } from "./errors.ts";

type WebResponse = globalThis.Response;

/** A plain-text error response (DESIGN §1: every built-in error is text/plain). */
export function textResponse(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): WebResponse {
  return new globalThis.Response(status === 204 || status === 304 ? null : message, {
    status,
    headers: { ...headers, "content-type": "text/plain; charset=utf-8" },
  });
}

export type ErrorLogger = (error: unknown, request: globalThis.Request) => void;

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
 */
export function defaultErrorResponse(
  error: unknown,
  request: ProblemSource,
  options: ErrorResponseOptions,
): WebResponse {
  const expected = error instanceof HttpError || error instanceof ArgError;
  if (!expected) options.log(error, request.raw);
  if (options.format === "problem") {
    const problem = problemOf(error, request, options.dev);
    return problemResponse(problem, error instanceof HttpError ? error.headers : {});
  }
  if (error instanceof ValidationError) {
    return new globalThis.Response(JSON.stringify({ detail: error.message, issues: error.issues }), {
      status: 422,
      headers: { "content-type": "application/json" },
    });
  }
  if (error instanceof HttpError) return textResponse(error.status, error.message, error.headers);
  if (error instanceof ArgError) return textResponse(400, error.message);
  const detail = options.dev && error instanceof Error ? `\n\n${error.stack ?? error.message}` : "";
  return textResponse(500, `Internal Server Error${detail}`);
}
