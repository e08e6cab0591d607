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
  requestTimeoutMs?: number;
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
  /** This route's handler time limit in ms (0: none); default: the app's `requestTimeoutMs`. */
  timeoutMs?: number;
}

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * One step before the handler: nothing (go on), a `Request` (go on with it), a response (the
 * answer: the rest is skipped), or a promise of one of these. Before-middlewares are steps as
 * they are.
 */
type Step = (request: Request) => unknown;

/**
 * Builds the dispatcher of one route from the steps it needs (docs/architecture.md):
 * request headers ▶ body ▶ before middlewares ▶ auth ▶ typed args ▶ body
 * schema ▶ handler ▶ conversion ▶ after middlewares ▶ response headers.
 * One loop runs them and stays synchronous until a step returns a promise (`isThenable`, the one
 * promise rule), so a route whose steps all answer at once never pays for a microtask turn.
 */
export function compileRoute(plan: RoutePlan, config: PipelineConfig): Dispatcher {
  const handler = withTimeout(plan.invoke ?? plan.handler, plan.timeoutMs ?? config.requestTimeoutMs ?? 0);
  const readsBody = BODY_METHODS.has(plan.method) && plan.rawBody !== true;
  const formLimits = readsBody || plan.rawBody === true ? config.formLimits : null;
  const headersExcluded = config.excludedHeaderPaths.has(plan.pattern);
  const responseRules = headersExcluded ? [] : config.responseHeaders;
  const checkExcludedPath =
    !headersExcluded && config.excludedHeaderPaths.size > 0 && plan.pathParamNames.length > 0;
  const after = plan.after;
  const steps = stepsOf(plan, config, readsBody);
  // Nothing looks at the request before the handler but the body's own framing, and nothing after
  // it but the conversion (and the header rules when the body is read): the route is host-blind
  // (src/serve/host-blind.ts), and its handler's first look at the URL or headers finishes the
  // Host check. An offloaded handler reads the request elsewhere, so it is checked whole first.
  const hostBlind =
    plan.invoke === undefined &&
    plan.rawBody !== true &&
    steps.length === (readsBody ? 1 : 0) &&
    after.length === 0 &&
    (readsBody || responseRules.length === 0);

  const finish = (response: WebResponse, raw: globalThis.Request): WebResponse => {
    if (responseRules.length === 0) return response;
    if (checkExcludedPath && config.excludedHeaderPaths.has(matchPath(raw.url))) return response;
    return withHeaderRules(response, responseRules);
  };

  const fail = (error: unknown, request: Request): Promise<WebResponse> =>
    errorResponse(error, request, after, config).then((response) => finish(response, request.raw));

  /** The answer, once the after-middlewares (if any) are done; background tasks start then. */
  const sent = (request: Request, response: Response): WebResponse => done(request, response.toWeb());

  /** The after-middlewares on the one webfw form of the answer, then its one Web form. */
  const afterware = (request: Request, response: Response): WebResponse | Promise<WebResponse> => {
    try {
      const result = runAfter(response, request, after);
      if (result instanceof Promise)
        return result.then(
          (ready) => sent(request, ready),
          (error) => fail(error, request),
        );
      return sent(request, result);
    } catch (error) {
      return fail(error, request);
    }
  };

  /** The answer as Bun gets it: background tasks (src/background/) start once it is ready. */
  const done = (request: Request, response: WebResponse): WebResponse =>
    request.backgroundTasks === null
      ? finish(response, request.raw)
      : afterResponse(request, finish(response, request.raw));

  /**
   * The handler's value converted once (src/response/convert.ts), to the form this route chose at
   * start: the Web response Bun sends, or, with after-middlewares, the webfw `Response` they change.
   * It may throw: its callers answer the error (no try block here, so the JIT can inline it).
   */
  const respond: (request: Request, value: unknown) => WebResponse | Promise<WebResponse> =
    after.length === 0
      ? (request, value) => {
          const response = toWebResponse(value, request.raw);
          if (!(response instanceof Promise)) return done(request, response);
          return response.then(
            (ready) => done(request, ready),
            (error) => fail(error, request),
          );
        }
      : (request, value) => {
          const converted = toWebfwResponse(value, request.raw);
          if (!(converted instanceof Promise)) return afterware(request, converted);
          return converted.then(
            (ready) => afterware(request, ready),
            (error) => fail(error, request),
          );
        };

  /** A pending handler value: converted once it settles. */
  const settled = (request: Request, value: PromiseLike<unknown>): Promise<WebResponse> =>
    Promise.resolve(value)
      .then((resolved) => respond(request, resolved))
      .then(undefined, (error) => fail(error, request));

  /** The steps from `from` on, then the handler; synchronous until one of them is pending. */
  const run = (request: Request, from: number): WebResponse | Promise<WebResponse> => {
    let current = request;
    try {
      for (let i = from; i < steps.length; i++) {
        const result = (steps[i] as Step)(current);
        if (result === undefined || result === null) continue;
        if (isThenable(result)) return resume(current, result, i + 1);
        const next = taken(result, current);
        if (next instanceof Request) current = next;
        else return finish(next, current.raw);
      }
      const value = handler(current);
      return isThenable(value) ? settled(current, value) : respond(current, value);
    } catch (error) {
      return fail(error, current);
    }
  };

  /** Goes on with the steps once a step's promise settled. */
  const resume = (request: Request, pending: PromiseLike<unknown>, next: number): Promise<WebResponse> =>
    Promise.resolve(pending).then(
      (result) => {
        if (result === undefined || result === null) return run(request, next);
        let found: Request | WebResponse;
        try {
          found = taken(result, request);
        } catch (error) {
          return fail(error, request);
        }
        return found instanceof Request ? run(found, next) : finish(found, request.raw);
      },
      (error) => fail(error, request),
    );

  const dispatch: Dispatcher = (raw, server, params, context) => {
    const request = new Request(raw, params, server, config.globalDependencies, plan.routerDependencies);
    if (context !== undefined) {
      request.context = context;
      // Only a host-blind route leaves part of the request-target check to the handler.
      const pending = hostBlind ? context.pending : undefined;
      if (pending !== undefined) {
        request.pendingHost = pending.host;
        request.pendingTarget = pending.target;
      }
    }
    if (formLimits !== null) request.formLimits = formLimits;
    return run(request, 0);
  };
  // Nothing before the handler and nothing after it but the conversion: the same steps, written
  // out so that the hot path is one small function the JIT compiles once.
  const direct: Dispatcher = (raw, server, params, context) => {
    const request = new Request(raw, params, server, config.globalDependencies, plan.routerDependencies);
    if (context !== undefined) {
      request.context = context;
      const pending = hostBlind ? context.pending : undefined;
      if (pending !== undefined) {
        request.pendingHost = pending.host;
        request.pendingTarget = pending.target;
      }
    }
    try {
      const value = handler(request);
      if (isThenable(value)) return settled(request, value);
      const response = toWebResponse(value, raw);
      if (response instanceof Promise)
        return response.then(
          (ready) => done(request, ready),
          (error) => fail(error, request),
        );
      return done(request, response);
    } catch (error) {
      return fail(error, request);
    }
  };
  const chosen = steps.length === 0 && after.length === 0 && formLimits === null ? direct : dispatch;
  return hostBlind ? markHostBlind(chosen) : chosen;
}

/** The steps before the handler that this route needs, in order (docs/architecture.md). */
function stepsOf(plan: RoutePlan, config: PipelineConfig, readsBody: boolean): Step[] {
  const steps: Step[] = [];
  const rules = config.requestHeaders;
  if (rules.length > 0) steps.push((request) => applyHeaderRules(request.headers.raw, rules));
  if (readsBody) {
    const { maxBodySize, bodyLimits } = config;
    steps.push((request) => {
      const body = readBody(request.raw, maxBodySize, bodyLimits);
      if (body instanceof Uint8Array) request.bodyBytes = body;
      else
        return body.then((bytes) => {
          request.bodyBytes = bytes;
        });
    });
  }
  steps.push(...plan.before);
  const { auth, authRequired, args, pathParamNames, body } = plan;
  if (auth !== null) steps.push((request) => authenticate(request, auth, authRequired));
  // Both are client data: marked so that returning them can never pick the response (client-data.ts).
  if (args !== null)
    steps.push((request) => {
      request.args = parseArgs(request, args, pathParamNames);
      markClientData(request.args);
    });
  if (body !== null)
    steps.push((request) =>
      validateBody(request, body).then((parsed) => {
        request.parsedBody = parsed;
        markClientData(parsed);
      }),
    );
  return steps;
}

/** What a step's result means: the request to go on with, or the answer. */
function taken(result: unknown, request: Request): Request | WebResponse {
  if (result instanceof Request) {
    // A middleware's new request keeps this request's context (src/http/request-context.ts).
    result.context ??= request.context;
    return result;
  }
  if (result instanceof Response) return result.toWeb();
  if (result instanceof globalThis.Response) return result;
  throw new TypeError("a before-request middleware must return a Request, a Response or nothing");
}

/** The one promise rule of the pipeline: a value is awaited when it has a `then` method. */
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
