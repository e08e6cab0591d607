import { ArgError } from "../args/t.ts";
import { HttpError } from "./errors.ts";

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

/**
 * The default answer to an error: its own status for HTTP errors, 400 for
 * typed-argument errors, else 500 with nothing of the error shown
 * (the stack goes to the log; with `dev` it is shown, for local debugging only).
 */
export function defaultErrorResponse(
  error: unknown,
  request: globalThis.Request,
  log: ErrorLogger,
  dev: boolean,
): WebResponse {
  if (error instanceof HttpError) return textResponse(error.status, error.message, error.headers);
  if (error instanceof ArgError) return textResponse(400, error.message);
  log(error, request);
  const detail = dev && error instanceof Error ? `\n\n${error.stack ?? error.message}` : "";
  return textResponse(500, `Internal Server Error${detail}`);
}
