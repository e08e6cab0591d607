/**
 * Step 3 of a request (docs/architecture.md, "One request"): the compiled dispatcher of one route
 * and method. `compileRoute` composes, once at start, a chain of the steps the route needs, each
 * calling the next directly; the handler's value (or an error's) is converted once, to the route's
 * one response form (src/response/convert.ts). Called by Bun's table (src/serve/native-routes.ts;
 * a host-blind route on a fixed path through `fixedPathEntry`, from Bun directly) and
 * src/serve/runtime.ts (everything else).
 */
import type { Server } from "bun";
import type { ArgSpec } from "../args/t.ts";
import type { AuthenticationHandler } from "../auth/handler.ts";
import { tasksAfter } from "../background/after-response.ts";
import type { FormLimits } from "../body/forms.ts";
import { type BodyLimits, readUnreadBody } from "../body/read-body.ts";
import { Request } from "../http/request.ts";
import { DispatchContext } from "../http/request-context.ts";
import { hostHeaderProblem, matchPath, urlTargetProblem } from "../http/request-target.ts";
import type { TracingHooks } from "../observability/hooks.ts";
import { markClientData } from "../response/client-data.ts";
import { toWebfwResponse, toWebResponse } from "../response/convert.ts";
import { copyResponse } from "../response/copy-response.ts";
import type { ErrorFormat, ErrorLogger } from "../response/error-response.ts";
import { HttpError } from "../response/errors.ts";
import { Response } from "../response/response.ts";
import { webResponseOf } from "../response/web-response.ts";
import type { AfterMiddleware, BeforeMiddleware } from "../router/middleware.ts";
import type { BodySchema } from "../router/route.ts";
import { errorAnswer } from "./error-answer.ts";
import { opensWithEmptyParameters, readsArguments } from "./handler-source.ts";
import { applyHeaderRules, type HeaderRule } from "./header-rules.ts";
import { markHostBlind } from "./host-blind.ts";
import { later } from "./later.ts";
import { parseArgs, validateBody } from "./route-input.ts";
import { withinTime } from "./timeout.ts";

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

/** What a host-blind route on a fixed path leaves to its handler's first look: all of the check. */
const WHOLE_CHECK_PENDING = Object.freeze(
  new DispatchContext(Object.freeze({ host: hostHeaderProblem, target: urlTargetProblem }), true),
);

/**
 * What Bun's table calls for a host-blind route on a fixed path (src/serve/native-routes.ts): Bun
 * matched the target exactly and there are no params, so nothing is read before the dispatcher
 * (`req.url` alone is an eighth of a bare `GET /`); the whole request-target check is left to the
 * first look at the URL or the headers (src/serve/host-blind.ts, docs/security.md "Request
 * target"). Made here so that a request enters this file straight from Bun
 * (docs/architecture.md, "The files a request crosses").
 */
export function fixedPathEntry(
  dispatcher: Dispatcher,
): (raw: globalThis.Request, server: Server<unknown>) => WebResponse | Promise<WebResponse> {
  return (raw, server) => dispatcher(raw, server, {}, WHOLE_CHECK_PENDING);
}

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

/** What a step gives: the response Bun sends, now or once something pending is done. */
type Answer = WebResponse | Promise<WebResponse>;
/** One step of a route's pipeline: does its work, then calls the next step directly. */
type Step = (request: Request) => Answer;
/** The rest of the way of a converted response (after-middlewares, header rules, tasks). */
type Sink<R> = (response: R, request: Request) => Answer;
/** The answer to an error: never throws, never rejects. */
type Failure = (error: unknown, request: Request) => Answer;

/**
 * The promise rule of the pipeline (docs/architecture.md, "One request"): a value is awaited only
 * when it is thenable, and the pipeline stays synchronous until one is. Applies to everything a
 * step is given: middlewares', handlers', authentication's and conversions' values.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    (typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function")
  );
}

/** The failure of the error answer's own after-middlewares: up to the error answer (src/serve/error-answer.ts). */
const rethrow: Failure = (error) => {
  throw error;
};

/**
 * Builds the dispatcher of one route: the steps it needs, composed here, once, into closures
 * that call one another directly (docs/architecture.md, "One request"):
 * request-header rules ▶ body ▶ before-middlewares ▶ auth ▶ typed args ▶ body schema ▶ handler
 * ▶ the value converted once ▶ after-middlewares ▶ response-header rules ▶ background tasks.
 * A route with none of them is the handler and the conversion; a synchronous chain stays
 * synchronous (no promise, no microtask turn) until a step's value is thenable.
 */
export function compileRoute(plan: RoutePlan, config: PipelineConfig): Dispatcher {
  const handler = plan.invoke ?? plan.handler;
  const timeoutMs = plan.timeoutMs ?? config.timeoutMs ?? 0;
  const readsBody = BODY_METHODS.has(plan.method) && plan.rawBody !== true;
  const headersExcluded = config.excludedHeaderPaths.has(plan.pattern);
  const responseRules = headersExcluded ? [] : config.responseHeaders;
  const checkExcludedPath =
    !headersExcluded && config.excludedHeaderPaths.size > 0 && plan.pathParamNames.length > 0;
  // Nothing but the application's code (middlewares, handler) looks at the request; the body read
  // looks only at its framing.
  const onlyCodeLooks =
    plan.auth === null &&
    plan.args === null &&
    plan.body === null &&
    config.requestHeaders.length === 0 &&
    plan.rawBody !== true;
  // Nothing looks at the request before the handler, nor does anything but the conversion after it.
  const nothingAround = onlyCodeLooks && plan.before.length === 0 && plan.after.length === 0;
  // Host-blind (src/serve/host-blind.ts, docs/security.md "Request target"): an inline handler
  // and the route's middlewares see the Host and the target only through `request.url`/
  // `queryParams`/`headers`, which finish the check (`pending`); reading the body looks at neither
  // (just its own framing). Authentication, typed args and a body schema read the request before
  // anyone's code does, and the request-header rules write into its headers: those routes keep the
  // whole check up front, as do response-header rules on a route without a body.
  const hostBlind = onlyCodeLooks && plan.invoke === undefined && (readsBody || responseRules.length === 0);

  /** The response-header rules (none on an excluded path). */
  const finish = (response: WebResponse, raw: globalThis.Request): WebResponse => {
    if (responseRules.length === 0) return response;
    if (checkExcludedPath && config.excludedHeaderPaths.has(matchPath(raw.url))) return response;
    return withHeaderRules(response, responseRules);
  };
  const finished = (response: WebResponse, request: Request): WebResponse => finish(response, request.raw);

  // The end of a handled request: header rules, then the background tasks the handler left
  // (src/background/), checked here so that a request without any enters nothing more.
  const sent: Sink<WebResponse> =
    responseRules.length === 0
      ? (response, request) => (request.backgroundTasks === null ? response : tasksAfter(request, response))
      : (response, request) => {
          const ready = finish(response, request.raw);
          return request.backgroundTasks === null ? ready : tasksAfter(request, ready);
        };

  // The one response form of this route, for its handler's value and for errors alike: the Web
  // response Bun sends when it has no after-middleware, else the webfw `Response` they change,
  // sent with one `.toWeb()` at the end (docs/architecture.md, "The pipeline").
  const webfwForm = plan.after.length > 0;
  // Errors: the same conversion and after-middlewares, without the background tasks (a request
  // whose handler failed drops them, docs/events.md). An after-middleware's own failure there
  // ends in the default answer, with the header rules only (`rethrow` hands it back there).
  const errorRest = (webfwForm ? afterChain(plan.after, finished, rethrow) : finished) as Sink<
    WebResponse | Response
  >;
  const fail: Failure = errorAnswer(config, webfwForm, errorRest, finished);

  const respond: (value: unknown, request: Request) => Answer = webfwForm
    ? respondWith(toWebfwResponse, afterChain(plan.after, sent, fail), fail)
    : respondWith(toWebResponse, sent, fail);

  // Built from the handler backwards: each step is given the one after it.
  let first = handlerStep(handler, timeoutMs, respond, fail);
  if (plan.body !== null) first = bodySchemaStep(plan.body, first, fail);
  if (plan.args !== null) first = argsStep(plan.args, plan.pathParamNames, first);
  if (plan.auth !== null) first = authStep(plan.auth, plan.authRequired, first, fail);
  for (let i = plan.before.length - 1; i >= 0; i--)
    first = beforeStep(plan.before[i] as BeforeMiddleware, first, finished, fail);
  if (readsBody) first = bodyStep(config, first, fail);
  else if (plan.rawBody === true) first = formLimitsStep(config.formLimits, first);
  if (config.requestHeaders.length > 0) first = requestHeadersStep(config.requestHeaders, first);

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

  const start = first;
  // Nothing around the handler, no timeout: the handler and the conversion in one function (one
  // function less to call and to compile than the chain of the same steps).
  const direct = nothingAround && !readsBody && timeoutMs === 0 && responseRules.length === 0;
  const dispatch: Dispatcher = direct
    ? (raw, server, params, context) => {
        const request = requestOf(raw, server, params, context);
        try {
          const value = handler(request);
          if (isThenable(value)) return later(value, request, respond, fail);
          const response = toWebResponse(value, raw);
          if (isThenable(response)) return later(response, request, sent, fail);
          return request.backgroundTasks === null ? response : tasksAfter(request, response);
        } catch (error) {
          return fail(error, request);
        }
      }
    : (raw, server, params, context) => {
        const request = requestOf(raw, server, params, context);
        try {
          return start(request);
        } catch (error) {
          return fail(error, request);
        }
      };
  if (!hostBlind) return dispatch;
  if (!nothingAround || readsBody || !declaresNoParameters(plan.handler)) return markHostBlind(dispatch);

  // A handler declared without parameters (`() => "hello"`) on a route with nothing around it
  // never sees a `Request`: none is made unless it fails (the error answer needs one). Nothing
  // can read the Host or the target either, so the pending check has nothing to finish. (A
  // host-blind route without a body has no response-header rules: nothing to add after it.)
  const call = plan.handler as () => unknown;
  const answerLater = (
    pending: PromiseLike<unknown>,
    raw: globalThis.Request,
    server: Server<unknown> | null,
    params: Params,
    context: DispatchContext | undefined,
  ): Promise<WebResponse> =>
    Promise.resolve(pending)
      .then((value) => toWebResponse(value, raw))
      .catch((error) => fail(error, requestOf(raw, server, params, context)));
  const withoutRequest: Dispatcher = (raw, server, params, context) => {
    let pending: PromiseLike<unknown>;
    try {
      const value = call();
      if (isThenable(value)) pending = timeoutMs > 0 ? withinTime(value, timeoutMs) : value;
      else {
        const response = toWebResponse(value, raw);
        if (!isThenable(response)) return response;
        pending = response;
      }
    } catch (error) {
      return fail(error, requestOf(raw, server, params, context));
    }
    return answerLater(pending, raw, server, params, context);
  };
  return markHostBlind(withoutRequest);
}

/**
 * Whether `handler` is declared with an empty parameter list (and never reads `arguments`): it
 * cannot see the request. A rest parameter or a default also make `length` 0, and a bound
 * function hides its source: those get the request as always.
 */
function declaresNoParameters(handler: (request: Request) => unknown): boolean {
  if (handler.length !== 0) return false;
  const source = Function.prototype.toString.call(handler);
  return opensWithEmptyParameters(source) && !source.includes("[native code]") && !readsArguments(source);
}

/** The handler's value, converted once to the route's form, then on to `next`. */
function respondWith<R>(
  convert: (value: unknown, raw: globalThis.Request) => R | Promise<R>,
  next: Sink<R>,
  fail: Failure,
): (value: unknown, request: Request) => Answer {
  return (value, request) => {
    const response = convert(value, request.raw);
    return isThenable(response) ? later(response, request, next, fail) : next(response as R, request);
  };
}

/** The handler (inline, or `invoke`: the worker pool), raced against the route's time limit. */
function handlerStep(
  handler: (request: Request) => unknown,
  timeoutMs: number,
  respond: (value: unknown, request: Request) => Answer,
  fail: Failure,
): Step {
  if (timeoutMs > 0) {
    return (request) => {
      const value = handler(request);
      return isThenable(value)
        ? later(withinTime(value, timeoutMs), request, respond, fail)
        : respond(value, request);
    };
  }
  return (request) => {
    const value = handler(request);
    return isThenable(value) ? later(value, request, respond, fail) : respond(value, request);
  };
}

/**
 * A before-middleware: nothing continues with the same request, a `Request` continues with that
 * one (keeping this request's context), a response is sent at once with the response-header
 * rules only (the rest of the chain, the handler and the after-middlewares are skipped).
 */
function beforeStep(
  middleware: BeforeMiddleware,
  next: Step,
  early: (response: WebResponse, request: Request) => WebResponse,
  fail: Failure,
): Step {
  const settle = (result: unknown, request: Request): Answer => {
    if (result === undefined || result === null || result === request) return next(request);
    if (result instanceof Request) {
      result.context ??= request.context;
      carryPendingCheck(request, result);
      // From here on, an error is answered for the new request.
      try {
        return next(result);
      } catch (error) {
        return fail(error, result);
      }
    }
    if (result instanceof Response) return early(webResponseOf(result), request);
    if (result instanceof globalThis.Response) return early(result, request);
    throw new TypeError("a before-request middleware must return a Request, a Response or nothing");
  };
  return (request) => {
    const result = middleware(request);
    return isThenable(result) ? later(result, request, settle, fail) : settle(result, request);
  };
}

/**
 * What is left of the request-target check (a host-blind route, src/serve/host-blind.ts) goes with
 * the `Request` a before-middleware returns: on the same Bun request it is left to that one's
 * first look, as it was; a `Request` over another Bun request (made by the middleware) gets the
 * check finished now, on the request the client sent (docs/security.md, "Request target").
 */
function carryPendingCheck(from: Request, to: Request): void {
  if (from.pendingHost === null && from.pendingTarget === null) return;
  if (to.raw === from.raw) {
    to.pendingHost ??= from.pendingHost;
    to.pendingTarget ??= from.pendingTarget;
  } else from.finishPendingCheck();
}

/**
 * The after-middlewares, in order, on the webfw `Response`, then its Web response once
 * (`webResponseOf`, what `.toWeb()` does) and `end`.
 * Nothing or the same kind of value continues at once; a Web response is taken as given (not
 * read, so it may stream).
 */
function afterChain(after: AfterMiddleware[], end: Sink<WebResponse>, fail: Failure): Sink<Response> {
  let chain: Sink<Response> = (response, request) => end(webResponseOf(response), request);
  for (let i = after.length - 1; i >= 0; i--) chain = afterStep(after[i] as AfterMiddleware, chain, fail);
  return chain;
}

function afterStep(middleware: AfterMiddleware, next: Sink<Response>, fail: Failure): Sink<Response> {
  return (response, request) => {
    const result = middleware(response, request);
    if (result === undefined || result === null) return next(response, request);
    if (result instanceof Response) return next(result, request);
    if (isThenable(result))
      return later(result, request, (value, request) => next(afterValue(value, response), request), fail);
    return next(afterValue(result, response), request);
  };
}

function afterValue(result: unknown, current: Response): Response {
  if (result === undefined || result === null) return current;
  if (result instanceof Response) return result;
  if (result instanceof globalThis.Response) return Response.fromWebStream(result);
  throw new TypeError("an after-request middleware must return a Response or nothing");
}

/**
 * Reads the body (limits, the in-flight budget, the read deadline: src/body/read-body.ts), then goes
 * on from inside the read (`withBytes`, or `fail`): the read's promise is the route's answer, one
 * promise turn fewer than a `later` after it.
 */
function bodyStep(config: PipelineConfig, next: Step, fail: Failure): Step {
  const withBytes = (bytes: Uint8Array, request: Request): Answer => {
    request.bodyBytes = bytes;
    return next(request);
  };
  return (request) => {
    request.formLimits = config.formLimits;
    return readUnreadBody(
      request.raw,
      config.maxBodySize,
      config.bodyLimits,
      request,
      withBytes,
      fail,
    ) as Answer;
  };
}

/** A raw-body route reads its body itself; streamed forms (`request.parts()`) need the app's limits. */
function formLimitsStep(limits: FormLimits, next: Step): Step {
  return (request) => {
    request.formLimits = limits;
    return next(request);
  };
}

function requestHeadersStep(rules: readonly HeaderRule[], next: Step): Step {
  return (request) => {
    applyHeaderRules(request.headers.raw, rules);
    return next(request);
  };
}

/**
 * Authentication: on routes that do not require it, it runs only when a credential is present.
 * A token the application cannot even parse (its `authenticate` throws something else than an
 * `HttpError`) is bad input: not authenticated, not a crash.
 */
function authStep(auth: AuthenticationHandler, required: boolean, next: Step, fail: Failure): Step {
  const checked = (request: Request): Answer => {
    if (required && request.identity === null) {
      throw new HttpError(401, "Unauthorized", { "www-authenticate": auth.challenge });
    }
    return next(request);
  };
  const admit = (identity: unknown, request: Request): Answer => {
    request.identity = (identity ?? null) as Request["identity"];
    return checked(request);
  };
  const unparsable = (error: unknown): null => {
    if (error instanceof HttpError) throw error;
    return null;
  };
  return (request) => {
    if (!required && auth.tokenGetter.getToken(request) === null) return checked(request);
    let identity: unknown;
    try {
      identity = auth.authenticate(request);
    } catch (error) {
      identity = unparsable(error);
    }
    if (!isThenable(identity)) return admit(identity, request);
    return later(Promise.resolve(identity).catch(unparsable), request, admit, fail);
  };
}

/** Typed args: client data, marked so that returning them can never pick the response (client-data.ts). */
function argsStep(specs: Record<string, ArgSpec<unknown>>, pathParamNames: string[], next: Step): Step {
  return (request) => {
    request.args = parseArgs(request, specs, pathParamNames);
    markClientData(request.args);
    return next(request);
  };
}

/** The body schema's value: client data too, marked likewise. */
function bodySchemaStep(schema: BodySchema<unknown>, next: Step, fail: Failure): Step {
  const validated = (value: unknown, request: Request): Answer => {
    request.parsedBody = value;
    markClientData(value);
    return next(request);
  };
  return (request) => later(validateBody(request, schema), request, validated, fail);
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
