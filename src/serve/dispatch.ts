/**
 * Step 3 of a request (docs/architecture.md): the compiled dispatcher of one route and method.
 * `compileRoute` keeps only the steps the route needs; the handler's value is converted once
 * (src/response/convert.ts), errors likewise (`errorResponse`). Called by src/serve/native-routes.ts
 * (Bun's table) and src/serve/runtime.ts (everything else).
 */
import type { Server } from "bun";
import type { ArgSpec } from "../args/t.ts";
import { validateJson } from "../args/validate-json.ts";
import type { AuthenticationHandler } from "../auth/handler.ts";
import { afterResponse } from "../background/after-response.ts";
import type { FormLimits } from "../body/forms.ts";
import { isFormContentType } from "../body/forms.ts";
import { type BodyLimits, readBody } from "../body/read-body.ts";
import { isJsonMediaType, mediaType } from "../http/media-type.ts";
import { Request } from "../http/request.ts";
import type { DispatchContext } from "../http/request-context.ts";
import { matchPath } from "../http/request-target.ts";
import type { TracingHooks } from "../observability/hooks.ts";
import { markClientData } from "../response/client-data.ts";
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
import type { AfterMiddleware, BeforeMiddleware } from "../router/middleware.ts";
import type { BodySchema } from "../router/route.ts";
import { applyHeaderRules, type HeaderRule } from "./header-rules.ts";
import { markHostBlind } from "./host-blind.ts";
import { withTimeout } from "./timeout.ts";

type WebResponse = globalThis.Response;
export type Params = Record<string, string>;

/** The compiled request handler of one method on one pattern. */
export type Dispatcher = (
  raw: globalThis.Request,
  server: Server<unknown> | null,
  params: Params,
  context?: DispatchContext,
) => WebResponse | Promise<WebResponse>;

export type { DispatchContext } from "../http/request-context.ts";

/** Application-wide settings every dispatcher reads. */
export interface PipelineConfig {
  maxBodySize: number;
  /** The in-flight body total and the body read timeout (src/body/budget.ts). */
  bodyLimits?: BodyLimits;
  formLimits: FormLimits;
  requestHeaders: readonly HeaderRule[];
  responseHeaders: readonly HeaderRule[];
  excludedHeaderPaths: ReadonlySet<string>;
  globalDependencies: Record<string, unknown>;
  exceptionHandler: ((error: unknown, request: Request) => unknown) | null;
  logError: ErrorLogger;
  /** Sees every error the pipeline answers but the expected 4xx (the request's span records it). */
  onError?: (error: unknown, context: DispatchContext | null) => void;
  /** Spans features start themselves (WebSocket messages, MCP tool calls); absent when tracing is off. */
  tracing?: TracingHooks;
  dev: boolean;
  /** Milliseconds a handler may take before the request gets 503; 0 or absent: no limit. */
  timeoutMs?: number;
  /** Bodies of built-in errors: plain text (default) or RFC 9457 problem details (src/problem/). */
  errorFormat?: ErrorFormat;
}

/** Everything one route needs, resolved from its routers at start. */
export interface RoutePlan {
  pattern: string;
  method: string;
  handler: (request: Request) => unknown;
  before: BeforeMiddleware[];
  after: AfterMiddleware[];
  auth: AuthenticationHandler | null;
  authRequired: boolean;
  args: Record<string, ArgSpec<unknown>> | null;
  pathParamNames: string[];
  body: BodySchema<unknown> | null;
  routerDependencies: Record<string, unknown>;
  /** Leave the body unread for the handler (it streams or parses it itself). */
  rawBody?: boolean;
  /** Runs the handler somewhere else (the worker pool); default: call it inline. */
  invoke?: (request: Request) => unknown;
  /** This route's handler time limit in ms (0: none); default: the app's `timeoutMs`. */
  timeoutMs?: number;
}

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * Builds the dispatcher of one route with only the steps it needs (docs/architecture.md):
 * request headers ▶ body ▶ before middlewares ▶ auth ▶ typed args ▶ body
 * schema ▶ handler ▶ conversion ▶ after middlewares ▶ response headers.
 */
export function compileRoute(plan: RoutePlan, config: PipelineConfig): Dispatcher {
  const handler = withTimeout(plan.invoke ?? plan.handler, plan.timeoutMs ?? config.timeoutMs ?? 0);
  const readsBody = BODY_METHODS.has(plan.method) && plan.rawBody !== true;
  const headersExcluded = config.excludedHeaderPaths.has(plan.pattern);
  const responseRules = headersExcluded ? [] : config.responseHeaders;
  const checkExcludedPath =
    !headersExcluded && config.excludedHeaderPaths.size > 0 && plan.pathParamNames.length > 0;
  // Nothing of the request is looked at before the handler, nor anything done after it but the
  // conversion. Streamed bodies (`request.parts()`) need the app's form limits set below.
  const nothingAround =
    plan.before.length === 0 &&
    plan.after.length === 0 &&
    plan.auth === null &&
    plan.args === null &&
    plan.body === null &&
    config.requestHeaders.length === 0 &&
    plan.rawBody !== true;
  const bare = nothingAround && responseRules.length === 0 && !readsBody;

  const finish = (response: WebResponse, raw: globalThis.Request): WebResponse => {
    if (responseRules.length === 0) return response;
    if (checkExcludedPath && config.excludedHeaderPaths.has(matchPath(raw.url))) return response;
    return withHeaderRules(response, responseRules);
  };

  const fail = (error: unknown, request: Request): Promise<WebResponse> =>
    errorResponse(error, request, plan.after, config).then((response) => finish(response, request.raw));

  /** The handler's request; on a host-blind route it carries what is left of the Host check. */
  const requestOf = (
    raw: globalThis.Request,
    server: Server<unknown> | null,
    params: Params,
    context: DispatchContext | undefined,
  ): Request => {
    const request = new Request(raw, params, server, config.globalDependencies, plan.routerDependencies);
    if (context === undefined) return request;
    // The request's context (src/http/request-context.ts): features keep their per-request data there.
    request.context = context;
    const pending = context.pending;
    if (pending !== undefined) {
      request.pendingHost = pending.host;
      request.pendingTarget = pending.target;
    }
    return request;
  };

  if (bare) {
    // The hot path: nothing runs around the handler, so skip the async machinery.
    const dispatch: Dispatcher = (raw, server, params, context) => {
      const request = requestOf(raw, server, params, context);
      try {
        const value = handler(request);
        if (value instanceof Promise) {
          return value.then(
            (resolved) => afterResponse(request, toWebResponse(resolved, raw)),
            (error) => fail(error, request),
          );
        }
        const response = afterResponse(request, toWebResponse(value, raw));
        return response instanceof Promise ? response.catch((error) => fail(error, request)) : response;
      } catch (error) {
        return fail(error, request);
      }
    };
    // Nothing runs before the handler here, and an inline handler sees the Host and the target only
    // through `request.url`/`queryParams`/`headers`, which finish the check (`pending`).
    return plan.invoke === undefined ? markHostBlind(dispatch) : dispatch;
  }

  if (nothingAround && readsBody) {
    // Only the body is read before the handler (`POST /json`): the same steps as below without an
    // async function, whose frame and extra promise per request cost more than the steps themselves.
    const done = (request: Request, raw: globalThis.Request, value: unknown) => {
      try {
        const response = toWebResponse(value, raw);
        if (response instanceof Promise) {
          return response.then(
            (ready) => afterResponse(request, finish(ready, raw)),
            (error) => fail(error, request),
          );
        }
        return afterResponse(request, finish(response, raw));
      } catch (error) {
        return fail(error, request);
      }
    };
    const answer = (request: Request, raw: globalThis.Request) => {
      let value: unknown;
      try {
        value = handler(request);
      } catch (error) {
        return fail(error, request);
      }
      if (!isThenable(value)) return done(request, raw, value);
      return Promise.resolve(value).then(
        (resolved) => done(request, raw, resolved),
        (error) => fail(error, request),
      );
    };
    const dispatch: Dispatcher = (raw, server, params, context) => {
      const request = requestOf(raw, server, params, context);
      request.formLimits = config.formLimits;
      let body: Uint8Array | Promise<Uint8Array>;
      try {
        body = readBody(raw, config.maxBodySize, config.bodyLimits);
      } catch (error) {
        return fail(error, request);
      }
      if (body instanceof Uint8Array) {
        request.bodyBytes = body;
        return answer(request, raw);
      }
      return body.then(
        (bytes) => {
          request.bodyBytes = bytes;
          return answer(request, raw);
        },
        (error) => fail(error, request),
      );
    };
    // Reading the body looks at neither the Host nor the target (just the body's own framing).
    return plan.invoke === undefined ? markHostBlind(dispatch) : dispatch;
  }

  // Something runs before the handler: never host-blind, so the request was checked whole already.
  return async (raw, server, params, context) => {
    let request = new Request(raw, params, server, config.globalDependencies, plan.routerDependencies);
    if (context !== undefined) request.context = context;
    try {
      if (config.requestHeaders.length > 0) applyHeaderRules(request.headers.raw, config.requestHeaders);
      if (readsBody) {
        // Inline rather than a helper: one async frame (and its promise) less per request with a body.
        const body = readBody(raw, config.maxBodySize, config.bodyLimits);
        request.bodyBytes = body instanceof Uint8Array ? body : await body;
        request.formLimits = config.formLimits;
      } else if (plan.rawBody === true) request.formLimits = config.formLimits;
      for (const middleware of plan.before) {
        // Awaiting only what is pending: an await costs a microtask turn even on a plain value.
        let result = middleware(request);
        if (isThenable(result)) result = await result;
        if (result === undefined || result === null) continue;
        if (result instanceof Request) {
          // A middleware's new request keeps this request's context.
          result.context ??= request.context;
          request = result;
        } else if (result instanceof Response) return finish(result.toWeb(), raw);
        else if (result instanceof globalThis.Response) return finish(result, raw);
        else throw new TypeError("a before-request middleware must return a Request, a Response or nothing");
      }
      if (plan.auth) await authenticate(request, plan.auth, plan.authRequired);
      // Both are client data: marked so that returning them can never pick the response (client-data.ts).
      if (plan.args) {
        request.args = parseArgs(request, plan.args, plan.pathParamNames);
        markClientData(request.args);
      }
      if (plan.body) {
        request.parsedBody = await validateBody(request, plan.body);
        markClientData(request.parsedBody);
      }
      let value = handler(request);
      if (isThenable(value)) value = await value;
      if (plan.after.length === 0) {
        const response = toWebResponse(value, raw);
        // Background tasks (src/background/) start once the response is ready for Bun.
        return afterResponse(request, finish(response instanceof Promise ? await response : response, raw));
      }
      let converted = toWebfwResponse(value, raw);
      if (converted instanceof Promise) converted = await converted;
      let response = runAfter(converted, request, plan.after);
      if (response instanceof Promise) response = await response;
      return afterResponse(request, finish(response.toWeb(), raw));
    } catch (error) {
      return fail(error, request);
    }
  };
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    (typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function")
  );
}

async function authenticate(request: Request, auth: AuthenticationHandler, required: boolean): Promise<void> {
  // On routes that do not require it, authentication runs only when a credential is present.
  if (required || auth.tokenGetter.getToken(request) !== null) {
    let identity = null;
    try {
      identity = await auth.authenticate(request);
    } catch (error) {
      if (error instanceof HttpError) throw error;
      // A token the application cannot even parse is bad input: not authenticated, not a crash.
      identity = null;
    }
    request.identity = identity ?? null;
  }
  if (required && request.identity === null) {
    throw new HttpError(401, "Unauthorized", { "www-authenticate": auth.challenge });
  }
}

function parseArgs(request: Request, specs: Record<string, ArgSpec<unknown>>, pathParams: string[]) {
  const args: Record<string, unknown> = {};
  for (const name in specs) {
    const spec = specs[name] as ArgSpec<unknown>;
    const raw = pathParams.includes(name)
      ? [(request.pathParams as Record<string, string>)[name] as string]
      : request.queryParams.getList(name);
    args[name] = spec.parse(raw, name);
  }
  return args;
}

async function validateBody(request: Request, schema: BodySchema<unknown>): Promise<unknown> {
  const contentType = request.raw.headers.get("content-type");
  const form = isFormContentType(contentType);
  // A body schema reads JSON (or a form, field by field). Any other declared type is refused before
  // parsing (415), so a client learns it sent the wrong thing instead of a 422 about missing fields;
  // a request with no Content-Type at all is read as JSON (raw clients, `curl --data-binary`).
  if (!form && contentType !== null && !isJsonMediaType(mediaType(contentType))) {
    throw new HttpError(415, "Unsupported Media Type: send application/json (or a form)", {
      "accept-post": "application/json, application/x-www-form-urlencoded, multipart/form-data",
    });
  }
  // Invalid JSON is a BadRequestError from request.json(): 400, not a validation issue.
  const input = form ? request.formData : request.json();
  const result = await validateJson(schema, input, "body", form);
  if ("issues" in result) throw new ValidationError(result.issues);
  return result.value;
}

/**
 * Runs the after middlewares; stays synchronous while they are (the common case), so the
 * response does not wait for extra microtask turns.
 */
function runAfter(
  response: Response,
  request: Request,
  after: AfterMiddleware[],
  from = 0,
): Response | Promise<Response> {
  let current = response;
  for (let i = from; i < after.length; i++) {
    const result = (after[i] as AfterMiddleware)(current, request);
    if (result === undefined || result === null) continue;
    if (result instanceof Response) current = result;
    else return runAfterAsync(current, result, request, after, i);
  }
  return current;
}

/** The rest of `runAfter` once middleware `index` returned a promise or a Web response. */
async function runAfterAsync(
  current: Response,
  pending: unknown,
  request: Request,
  after: AfterMiddleware[],
  index: number,
): Promise<Response> {
  const result = isThenable(pending) ? await pending : pending;
  let next = current;
  if (result instanceof Response) next = result;
  // A Web response from a middleware is taken as given: not read, so it may stream.
  else if (result instanceof globalThis.Response) next = Response.fromWebStream(result);
  else if (result !== undefined && result !== null) {
    throw new TypeError("an after-request middleware must return a Response or nothing");
  }
  return runAfter(next, request, after, index + 1);
}

/** Builds the response for an error: the app's exception handler if any, else the default contract; then after middlewares. */
async function errorResponse(
  error: unknown,
  request: Request,
  after: AfterMiddleware[],
  config: PipelineConfig,
): Promise<WebResponse> {
  // A 404 or a 401 is an answer, not a failure: only unexpected errors and 5xx reach the span.
  if (config.onError && (!(error instanceof HttpError) || error.status >= 500))
    config.onError(error, request.context);
  // With no after-middleware the answer is made as a Web response directly; with some, as a webfw
  // Response they can change, converted once when they are done.
  const options = errorOptions(config);
  try {
    if (after.length === 0) {
      if (error instanceof ValidationError || !config.exceptionHandler)
        return defaultErrorResponse(error, request, options);
      return await handledError(error, request, config.exceptionHandler);
    }
    let response: Response;
    try {
      // The 422 of a body schema is fixed (docs/errors.md): the exception handler does not see it.
      if (error instanceof ValidationError || !config.exceptionHandler)
        response = defaultErrorAnswer(error, request, options);
      else {
        response = await toWebfwResponse(await config.exceptionHandler(error, request), request.raw);
        // Protocol headers of the error (Allow on 405, WWW-Authenticate on 401) survive a custom body.
        if (error instanceof HttpError) addMissingHeaders(response.headers.raw, error.headers);
      }
    } catch (handlerError) {
      response = defaultErrorAnswer(handlerError, request, options);
    }
    return (await runAfter(response, request, after)).toWeb();
  } catch (laterError) {
    // The exception handler itself failed (no after-middlewares), or an after-middleware did.
    return defaultErrorResponse(laterError, request, options);
  }
}

/** The application's exception handler's answer, as a Web response, with the error's protocol headers. */
async function handledError(
  error: unknown,
  request: Request,
  handler: (error: unknown, request: Request) => unknown,
): Promise<WebResponse> {
  const response = await toWebResponse(await handler(error, request), request.raw);
  return error instanceof HttpError ? withMissingHeaders(response, error.headers) : response;
}

function addMissingHeaders(target: globalThis.Headers, headers: Record<string, string>): void {
  for (const name in headers) if (!target.has(name)) target.set(name, headers[name] as string);
}

function errorOptions(config: PipelineConfig): ErrorResponseOptions {
  return { log: config.logError, dev: config.dev, format: config.errorFormat ?? "text" };
}

/** Adds the application's response headers; copies the response if its headers are immutable. */
export function withHeaderRules(response: WebResponse, rules: readonly HeaderRule[]): WebResponse {
  try {
    applyHeaderRules(response.headers, rules);
    return response;
  } catch {
    const copy = copyResponse(response);
    applyHeaderRules(copy.headers, rules);
    return copy;
  }
}

function withMissingHeaders(response: WebResponse, headers: Record<string, string>): WebResponse {
  const missing = Object.entries(headers).filter(([name]) => !response.headers.has(name));
  if (missing.length === 0) return response;
  const copy = copyResponse(response);
  for (const [name, value] of missing) copy.headers.set(name, value);
  return copy;
}

/** The plan of a framework-made route: only the app-global middlewares around a handler. */
export function builtInPlan(
  pattern: string,
  method: string,
  handler: (request: Request) => unknown,
  before: BeforeMiddleware[],
  after: AfterMiddleware[],
): RoutePlan {
  return {
    pattern,
    method,
    handler,
    before,
    after,
    auth: null,
    authRequired: false,
    args: null,
    pathParamNames: [],
    body: null,
    routerDependencies: {},
  };
}
