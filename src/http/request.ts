import type { Server } from "bun";
import type { Identity } from "../auth/identity.ts";
import type { BackgroundTask } from "../background/tasks.ts";
import type { FormLimits, ParsedForm } from "../body/form-types.ts";
// The error classes are the core's own way to say "answer with this status" (docs/errors.md).
import { BadRequestError } from "../response/errors.ts";
import type { AppTypes, ClaimsOf, GlobalDepsOf, NoAppTypes, RouterDepsOf } from "../router/app-types.ts";
import type { Session } from "../sessions/session.ts";
import type { UploadTicket } from "../uploads/gate.ts";
import type { UploadLimits } from "../uploads/limits.ts";
import type { Part } from "../uploads/parts.ts";
import { clientAddressOf, forwardedClient } from "./client-address.ts";
import { parseCookies } from "./cookies.ts";
import { cspNonceOf } from "./csp-nonce.ts";
import { Headers } from "./headers.ts";
import { parseJson } from "./json.ts";
import { QueryParams } from "./query-params.ts";
import { contextOf, type DispatchContext, type TargetCheck } from "./request-context.ts";
import { RequestExtras } from "./request-extras.ts";
import { assignRequestId, requestIdOf } from "./request-id.ts";
import { requestServices } from "./request-services.ts";
import { Url } from "./url.ts";
import { strictUtf8 } from "./utf8.ts";

const EMPTY = new Uint8Array(0);

/**
 * Runs a part of the check a host-blind route left (src/serve/host-blind.ts) and returns `null`
 * (nothing left of it): a request Bun's table would have refused is refused here (400), before
 * the handler gets the value it asked for.
 */
function finishCheck(check: TargetCheck, raw: globalThis.Request): null {
  const problem = check(raw);
  if (problem !== null) throw new BadRequestError(problem);
  return null;
}

/**
 * The request a handler receives (spec `Request`). Everything is parsed on
 * first access; the body is read before the handler runs only for methods
 * that carry one.
 *
 * It imports no feature (docs/architecture.md, "What a Request knows"): what a feature keeps for
 * one request (its id, the CSP nonce, the client's address) is read from the request's context,
 * where the feature's layer put it; what a feature does for the app (forms, streamed uploads,
 * jobs) is reached through src/http/request-services.ts; background tasks are a plain list the
 * dispatcher hands over.
 */
export class Request<
  P extends Record<string, string> = Record<string, string>,
  A = Record<string, unknown>,
  B = unknown,
  T extends AppTypes = NoAppTypes,
> {
  /** The Web request underneath (Bun's). */
  readonly raw: globalThis.Request;
  pathParams: P;
  /** `injectGlobal` values; typed by the app's `global` (`AppTypes`). */
  globalDependencies: GlobalDepsOf<T>;
  /** `inject` values of the route's routers; typed by the app's `router` (`AppTypes`). */
  routerDependencies: RouterDepsOf<T>;

  /** @internal */ server: Server<unknown> | null;
  /** @internal The request's context (src/http/request-context.ts): features keep their per-request data there. */
  context: DispatchContext | null = null;
  /** @internal What of the request-target check is still to run (src/serve/host-blind.ts). */
  pendingHost: TargetCheck | null = null;
  /** @internal */ pendingTarget: TargetCheck | null = null;
  /** @internal */ bodyBytes: Uint8Array = EMPTY;
  /** @internal The app's form limits, set by the dispatcher for routes with a body; `null`: the defaults. */
  formLimits: FormLimits | null = null;
  private cachedUrl: Url | null = null;
  private cachedQuery: QueryParams | null = null;
  private cachedHeaders: Headers | null = null;
  private cachedBody: string | Uint8Array | null = null;
  /**
   * @internal Tasks left by `background()`, started by the dispatcher after the response
   * (src/background/). A field of its own: the dispatcher reads it on every request.
   */
  backgroundTasks: BackgroundTask[] | null = null;
  /**
   * What only some requests use (src/http/request-extras.ts), made on first need: the fields above
   * are the ones every request's constructor stores (docs/performance.md, "Issue 32, fourth pass:
   * the request side").
   */
  private extras: RequestExtras | null = null;

  constructor(
    raw: globalThis.Request,
    pathParams: P,
    server: Server<unknown> | null = null,
    globalDependencies: Record<string, unknown> = {},
    routerDependencies: Record<string, unknown> = {},
  ) {
    this.raw = raw;
    this.pathParams = pathParams;
    this.server = server;
    this.globalDependencies = globalDependencies as GlobalDepsOf<T>;
    this.routerDependencies = routerDependencies as RouterDepsOf<T>;
  }

  /** The request's extras, made on the first write. */
  private own(): RequestExtras {
    this.extras ??= new RequestExtras();
    return this.extras;
  }

  /** The request method; Bun's request's own unless set here. */
  get method(): string {
    return this.extras?.method ?? this.raw.method;
  }
  set method(value: string) {
    this.own().method = value;
  }

  /** Set by authentication; `null` when not authenticated. Typed by the app's `claims` (`AppTypes`). */
  get identity(): Identity<ClaimsOf<T>> | null {
    return (this.extras?.identity ?? null) as Identity<ClaimsOf<T>> | null;
  }
  set identity(value: Identity<ClaimsOf<T>> | null) {
    if (value !== null || this.extras !== null) this.own().identity = value as Identity<object> | null;
  }

  /** The body validated by the route's `body` option. */
  get parsedBody(): B {
    return this.extras?.parsedBody as B;
  }
  set parsedBody(value: B) {
    if (value !== undefined || this.extras !== null) this.own().parsedBody = value;
  }

  /** The signed-cookie session; `null` unless `app.sessions()` was called. */
  get session(): Session | null {
    return this.extras?.session ?? null;
  }
  set session(value: Session | null) {
    if (value !== null || this.extras !== null) this.own().session = value;
  }

  /** @internal This upload's share of the app's upload bounds, on `{ body: "stream" }` routes (src/uploads/admit.ts). */
  get uploadTicket(): UploadTicket | null {
    return this.extras?.uploadTicket ?? null;
  }
  /** @internal */
  set uploadTicket(value: UploadTicket | null) {
    if (value !== null || this.extras !== null) this.own().uploadTicket = value;
  }

  /** Typed arguments of the route's `args` option. */
  get args(): A {
    const extras = this.own();
    extras.args ??= {};
    return extras.args as A;
  }
  set args(value: A) {
    this.own().args = value;
  }

  /**
   * This request's id (docs/request-ids.md): the client's `X-Request-Id` when it is sane
   * (1–128 visible ASCII characters), else a new UUIDv7. With `requestId` on, it is echoed on the
   * response and written in the access log; error logs and background-task failures carry it always.
   */
  get id(): string {
    const extras = this.own();
    extras.id ??= requestIdOf(this.raw, this.ownContext());
    return extras.id;
  }
  set id(value: string) {
    this.own().id = value;
    assignRequestId(this.ownContext(), value);
  }

  /**
   * @internal The request's own context (src/http/request-context.ts), made on first need: a
   * request that had none, or shared one (a host-blind route), gets one that keeps its pending check.
   */
  ownContext(): DispatchContext {
    const context = this.context;
    if (context !== null && !context.shared) return context;
    const own = contextOf(context);
    this.context = own;
    return own;
  }

  /**
   * Runs `task` after the response has been written (docs/events.md#background-tasks): sync or
   * async, in order with the request's other tasks; on the Worker for offloaded routes. Its errors
   * are logged with the request id; the client never sees them. Shutdown waits for running tasks
   * within the drain timeout. Tasks of a request whose handler throws are dropped.
   */
  background(task: BackgroundTask): void {
    if (typeof task !== "function") throw new TypeError("request.background() takes a function");
    if (this.backgroundTasks === null) this.backgroundTasks = [task];
    else this.backgroundTasks.push(task);
  }

  /**
   * Queues job `name` (`app.job`) with `data`, as `app.enqueue` does; the job's span continues this
   * request's trace (docs/jobs.md). Resolves with the job's id once it is stored.
   */
  enqueue(name: string, data: unknown, options?: { delay?: number; id?: string }): Promise<string> {
    const jobs = requestServices.jobsOf(this.globalDependencies as object);
    if (!jobs) return Promise.reject(new TypeError(`no job named '${name}' (app.job registers one)`));
    return jobs.enqueue(name, data, options);
  }

  /**
   * This response's Content-Security-Policy nonce, for `<script nonce="…">` in `html()` and
   * templates (docs/security.md, "Secure response headers"); `undefined` unless the route's
   * `secureHeaders` policy uses `NONCE` (the default one does).
   */
  get cspNonce(): string | undefined {
    return cspNonceOf(this.context);
  }

  /** Per-request state for middlewares (sessions, timing, …). */
  get state(): Record<string, unknown> {
    const extras = this.own();
    extras.state ??= {};
    return extras.state;
  }

  /** @internal Runs what is left of the request-target check now (400 when it refuses the request). */
  finishPendingCheck(): void {
    if (this.pendingHost !== null) this.pendingHost = finishCheck(this.pendingHost, this.raw);
    if (this.pendingTarget !== null) this.pendingTarget = finishCheck(this.pendingTarget, this.raw);
  }

  get url(): Url {
    if (this.cachedUrl === null) {
      // The URL shows both the Host and the target: what is left of the check runs first.
      this.finishPendingCheck();
      this.cachedUrl = Url.parse(this.raw.url);
      // Behind a trusted proxy, the scheme and host the client used (docs/client-address.md).
      const client = forwardedClient(this.raw, this.server, this.context);
      if (client !== null && (client.scheme !== null || client.host !== null)) {
        const url = this.cachedUrl;
        this.cachedUrl = new Url(client.scheme ?? url.scheme, client.host ?? url.host, url.path, url.query);
      }
    }
    return this.cachedUrl;
  }

  get queryParams(): QueryParams {
    if (this.cachedQuery === null) {
      if (this.pendingTarget !== null) this.pendingTarget = finishCheck(this.pendingTarget, this.raw);
      this.cachedQuery = new QueryParams(this.cachedUrl?.query ?? Url.queryOf(this.raw.url));
    }
    return this.cachedQuery;
  }
  set queryParams(value: QueryParams) {
    this.cachedQuery = value;
  }

  get headers(): Headers {
    if (this.cachedHeaders === null) {
      if (this.pendingHost !== null) this.pendingHost = finishCheck(this.pendingHost, this.raw);
      this.cachedHeaders = new Headers(this.raw.headers);
    }
    return this.cachedHeaders;
  }

  set headers(value: Headers) {
    this.cachedHeaders = value;
    if (this.extras !== null) this.extras.cookies = null;
  }

  /** Cookies sent by the client, name to value. */
  get cookies(): Record<string, string> {
    const extras = this.own();
    extras.cookies ??= parseCookies(this.headers.get("cookie"));
    return extras.cookies;
  }

  /** The raw body: a string when it is valid UTF-8, else the bytes; `""` when empty. */
  get body(): string | Uint8Array {
    if (this.cachedBody === null) {
      const bytes = this.bodyBytes;
      this.cachedBody = bytes.length === 0 ? "" : (strictUtf8(bytes) ?? bytes);
    }
    return this.cachedBody;
  }
  set body(value: string | Uint8Array) {
    this.cachedBody = value;
    this.bodyBytes = typeof value === "string" ? new TextEncoder().encode(value) : value;
  }

  /**
   * The parsed form body (urlencoded or multipart), parsed on first access;
   * `null` for other content types. Throws `BadRequestError` (400) when malformed.
   */
  get form(): ParsedForm | null {
    const parsed = this.extras?.parsedForm ?? null;
    if (parsed !== null) return parsed;
    if (this.bodyBytes.length === 0) return null;
    const contentType = this.raw.headers.get("content-type");
    const form = requestServices.readForm(this.bodyBytes, contentType, this.formLimits);
    if (form !== null) this.own().parsedForm = form;
    return form;
  }
  set form(value: ParsedForm | null) {
    if (value !== null || this.extras !== null) this.own().parsedForm = value;
  }

  /** Form fields of an urlencoded or multipart body (a repeated name keeps its last value). */
  get formData(): Record<string, string> {
    return this.form?.fields ?? {};
  }

  /** Uploaded files of a multipart body, keyed by file name. */
  get files(): Record<string, Uint8Array> {
    return this.form?.files ?? {};
  }

  /**
   * The client's address: the socket's, or behind a trusted proxy the one it reports
   * (`trustProxy`, docs/client-address.md); IPv4-mapped IPv6 is written as IPv4.
   */
  get ipAddr(): string | null {
    const extras = this.own();
    if (extras.ip === undefined) extras.ip = clientAddressOf(this.raw, this.server, this.context);
    return extras.ip;
  }
  set ipAddr(value: string | null) {
    this.own().ip = value;
  }

  /**
   * The parts of a `multipart/form-data` body, read from the socket as they arrive, for routes
   * with `{ body: "stream" }` (docs/uploads.md). `limits` override the app's form limits.
   */
  parts(limits?: Partial<UploadLimits>): AsyncIterableIterator<Part> {
    return requestServices.streamParts(this.raw, limits, this.formLimits, this.uploadTicket);
  }

  /**
   * The body parsed as JSON, types preserved; nesting is limited to 128 levels.
   * Throws `BadRequestError` (400 when not caught) on invalid JSON.
   */
  json<T = unknown>(): T {
    const body = this.body;
    // Bytes here are the ones that failed to decode, or bytes a middleware set (`body` setter).
    const text = typeof body === "string" ? body : strictUtf8(this.bodyBytes);
    // JSON must be UTF-8 (RFC 8259 §8.1): undecodable bytes are bad input, not text to patch with U+FFFD.
    if (text === null) throw new BadRequestError("invalid JSON body: not valid UTF-8");
    return parseJson(text) as T;
  }

  /** The body as text, whatever its encoding (invalid UTF-8 becomes U+FFFD). */
  text(): string {
    return typeof this.body === "string" ? this.body : new TextDecoder().decode(this.bodyBytes);
  }
}
