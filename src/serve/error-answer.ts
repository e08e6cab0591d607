/**
 * A route's answer to an error (docs/errors.md), on the same way as its handler's value
 * (docs/architecture.md, "One request"): the value (the app's exception handler's, or the default
 * answer) is converted once to the route's response form, then goes through the route's
 * after-middlewares and response-header rules. Built once per route by src/serve/dispatch.ts.
 */
import type { Request } from "../http/request.ts";
import type { DispatchContext } from "../http/request-context.ts";
import { toWebfwResponse, toWebResponse } from "../response/convert.ts";
import { copyResponse } from "../response/copy-response.ts";
import {
  defaultErrorAnswer,
  defaultErrorResponse,
  type ErrorFormat,
  type ErrorLogger,
  type ErrorResponseOptions,
} from "../response/error-response.ts";
import { HttpError, ValidationError } from "../response/errors.ts";
import { Response } from "../response/response.ts";

type WebResponse = globalThis.Response;

/** What of the app's settings the error answer reads (a part of `PipelineConfig`). */
export interface ErrorSettings {
  exceptionHandler: ((error: unknown, request: Request) => unknown) | null;
  logError: ErrorLogger;
  /** Sees every error the pipeline answers but the expected 4xx (the request's span records it). */
  onError?: (error: unknown, context: DispatchContext | null) => void;
  dev: boolean;
  errorFormat?: ErrorFormat;
}

/**
 * The route's error answer. `webfwForm`: the route has after-middlewares, so the value becomes a
 * webfw `Response` (else the Web response Bun sends). `rest`: the route's way from a converted
 * response to Bun (after-middlewares, `.toWeb()`, header rules): it may throw or reject, and
 * its failure ends in `last`. `last`: the response-header rules alone, for the
 * answer to an error of the after-middlewares themselves.
 */
export function errorAnswer(
  settings: ErrorSettings,
  webfwForm: boolean,
  rest: (response: WebResponse | Response, request: Request) => WebResponse | Promise<WebResponse>,
  last: (response: WebResponse, request: Request) => WebResponse,
): (error: unknown, request: Request) => Promise<WebResponse> {
  const options: ErrorResponseOptions = {
    log: settings.logError,
    dev: settings.dev,
    format: settings.errorFormat ?? "text",
  };
  const convert = webfwForm ? toWebfwResponse : toWebResponse;
  const handler = settings.exceptionHandler;
  return async (error, request) => {
    // A 404 or a 401 is an answer, not a failure: only unexpected errors and 5xx reach the span.
    if (settings.onError && (!(error instanceof HttpError) || error.status >= 500))
      settings.onError(error, request.context);
    try {
      let response: WebResponse | Response;
      try {
        // The 422 of a body schema is fixed (docs/errors.md): the exception handler does not see it.
        if (error instanceof ValidationError || handler === null)
          response = await convert(defaultErrorAnswer(error, request, options), request.raw);
        else {
          response = await convert(await handler(error, request), request.raw);
          // Protocol headers of the error (Allow on 405, WWW-Authenticate on 401) survive a custom body.
          if (error instanceof HttpError) response = withMissingHeaders(response, error.headers);
        }
      } catch (handlerError) {
        // The exception handler (or the conversion of its value) failed: the default answer to that.
        response = await convert(defaultErrorAnswer(handlerError, request, options), request.raw);
      }
      return await rest(response, request);
    } catch (laterError) {
      // An after-middleware failed on the error's answer: the default answer, without them.
      return last(defaultErrorResponse(laterError, request, options), request);
    }
  };
}

/** `response` with the headers it lacks of `headers`: set on a webfw `Response`, on a copy of a Web one. */
function withMissingHeaders(
  response: WebResponse | Response,
  headers: Record<string, string>,
): WebResponse | Response {
  if (response instanceof Response) {
    const target = response.headers.raw;
    for (const name in headers) if (!target.has(name)) target.set(name, headers[name] as string);
    return response;
  }
  const missing = Object.entries(headers).filter(([name]) => !response.headers.has(name));
  if (missing.length === 0) return response;
  const copy = copyResponse(response);
  for (const [name, value] of missing) copy.headers.set(name, value);
  return copy;
}
