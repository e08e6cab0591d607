import { toArgSpecs } from "../args/standard-arg.ts";
import type { StandardSchemaV1 } from "../args/standard-schema.ts";
import type { ArgShape, ArgSpec, RouteArgShape } from "../args/t.ts";
import type { AuthenticationHandler } from "../auth/handler.ts";
import type * as CacheOptions from "../cache/options.ts";
import type { CacheSetting } from "../cache/options.ts";
import type * as CorsModule from "../cors/index.ts";
import type { CorsOptions } from "../cors/index.ts";
import {
  type CheckedCrossOrigin,
  type CrossOriginSetting,
  checkCrossOriginSetting,
} from "../cross-origin/options.ts";
import type { Request } from "../http/request.ts";
import type * as IpFilterOptions from "../ip-filter/options.ts";
import type { IpFilter, IpFilterSetting } from "../ip-filter/options.ts";
import type * as RateLimitOptionsModule from "../rate-limit/options.ts";
import type { RateLimitOptions, RateLimitSetting } from "../rate-limit/options.ts";
import { checkTimeout } from "../serve/timeout.ts";
import type * as SessionsModule from "../sessions/index.ts";
import type { SessionOptions } from "../sessions/index.ts";
import { TopicHub, topicText } from "../topics/hub.ts";
// WebSocket routes (src/websocket/): registered here, compiled by build.ts through mountWebSockets.
import type * as WebSocketRouteModule from "../websocket/route.ts";
import type { WebSocketHandler, WebSocketRoute, WebSocketRouteOptions } from "../websocket/route.ts";
import type { AfterMiddleware, BeforeMiddleware, ScopedMiddleware } from "./middleware.ts";
import {
  type AppTypes,
  type EmptyArgs,
  type Handler,
  HTTP_METHODS,
  type HttpMethod,
  type InferRouteArgs,
  type JoinPath,
  joinPath,
  type NoAppTypes,
  type PathParamsOf,
  type RouteOptions,
  type RouteRecord,
  type RouterDepsOf,
  validatePattern,
} from "./route.ts";
import { Route } from "./route-handle.ts";
import { noteRouteSource } from "./route-source.ts";

/** The `args` shape given in a route's options (none: no arguments). */
export type ArgsOfOptions<O> = O extends { args: infer A extends RouteArgShape }
  ? { -readonly [K in keyof A]: A[K] }
  : EmptyArgs;
/** The validated body type of a route's `body` option (a Standard Schema's output, a `t.object`'s value). */
export type BodyOfOptions<O> = O extends { body: infer S }
  ? S extends StandardSchemaV1<unknown, infer Out>
    ? Out
    : S extends ArgSpec<infer V>
      ? V
      : unknown
  : unknown;

/**
 * `app.get(path, handler, options)` and the other methods. The options are a `const` type
 * parameter and the handler's return type is captured, so the returned `Route` carries what
 * `webfw/client` types a call with; `Prefix` is the router's own prefix (docs/client.md).
 */
export type RouteMethod<T extends AppTypes, M extends HttpMethod, Prefix extends string> = <
  P extends string,
  R,
  const O extends RouteOptions<RouteArgShape, unknown> = EmptyOptions,
>(
  path: P,
  handler: (request: Request<PathParamsOf<P>, InferRouteArgs<ArgsOfOptions<O>>, BodyOfOptions<O>, T>) => R,
  options?: O,
) => Route<M, P, R, O, Prefix>;

/** The options of a route registered without any (`app.get("/", handler)`). */
// biome-ignore lint/complexity/noBannedTypes: no options given is exactly an empty object type
export type EmptyOptions = {};

/**
 * What a sub-router starts with, the same for `app.router(prefix, options)` and
 * `new SubRouter(mainFile, { prefix, ...options })` (docs/options.md#router-options).
 */
export interface RouterOptions<T extends AppTypes = NoAppTypes> {
  /** Values its requests get as `request.routerDependencies` (as `router.inject(values)`). */
  dependencies?: Partial<RouterDepsOf<T>> & object;
  /** Authentication for its routes, overriding the app's (as `router.configureAuthentication(handler)`). */
  authentication?: AuthenticationHandler<object>;
  /** A rate limit for its routes (as `router.rateLimit(options)`, docs/rate-limiting.md). */
  rateLimit?: RateLimitOptions | false;
  /** Addresses and CIDR ranges allowed or denied on its routes (as `router.ipFilter(setting)`, docs/client-address.md#ip-filters). */
  ipFilter?: IpFilterSetting;
  /**
   * Milliseconds each of its handlers may take before the request gets 503; 0: no limit. A route's
   * `timeoutMs` wins; default: the enclosing router's, else the app's (docs/options.md#time-limits).
   */
  timeoutMs?: number;
}

/** `new SubRouter(mainFile, options)`: the router options and its prefix. */
export interface SubRouterOptions<Prefix extends string = string, T extends AppTypes = NoAppTypes>
  extends RouterOptions<T> {
  /** The path every route of the router is under (`"/api"`); kept as a literal type for `webfw/client`. */
  prefix?: Prefix;
}

/**
 * `SubRouter.typed<AppTypes>()`: the `SubRouter` class with the app's types given once, for routers
 * defined in their own files; `new ApiRouter(import.meta.path, { prefix: "/notes" })` then types
 * every handler with the app's dependencies and claims, and keeps the prefix as a literal.
 */
export interface TypedSubRouter<T extends AppTypes> {
  new <const Prefix extends string = "">(
    mainFile: string,
    options?: SubRouterOptions<Prefix, T>,
  ): SubRouter<T, Prefix>;
}

/**
 * Registration API shared by the app and sub-routers: routes, scoped
 * middlewares, dependencies, authentication, nesting.
 */
export class RouterBase<T extends AppTypes = NoAppTypes, Prefix extends string = string> {
  readonly prefix: string;
  /** @internal */ readonly routes: RouteRecord[] = [];
  /** @internal WebSocket routes of this router (paths include every prefix, like `routes`). */
  readonly websockets: WebSocketRoute[] = [];
  /** @internal */ readonly before: ScopedMiddleware<BeforeMiddleware>[] = [];
  /** @internal */ readonly after: ScopedMiddleware<AfterMiddleware>[] = [];
  /** @internal */ readonly children: RouterBase[] = [];
  /** @internal */ dependencies: Record<string, unknown> = {};
  /** @internal */ authHandler: AuthenticationHandler | null = null;
  /** @internal Only the root's is used (`topicHub()`). */ hub: TopicHub | null = null;
  /** @internal */ parent: RouterBase | null = null;
  /** @internal Set by `rateLimit()`; `undefined` when this router declares none. */
  rateLimitSetting: RateLimitSetting | undefined = undefined;
  /** @internal Set by `cacheResponses()`; `undefined` when this router declares none. */
  cacheSetting: CacheSetting | undefined = undefined;
  /** @internal Set by `csrf()`; `undefined` when this router declares nothing. */
  crossOriginSetting: CheckedCrossOrigin | undefined = undefined;
  /** @internal The app's or a SubRouter's `ipFilter`, checked; `undefined` when it declares none. */
  ipFilterSetting: IpFilter | false | undefined = undefined;
  /** @internal The `timeoutMs` of the app or a router, checked; `undefined` when it declares none. */
  timeoutSetting: number | undefined = undefined;

  constructor(prefix = "") {
    this.prefix = prefix === "" || prefix === "/" ? "" : joinPath("", prefix);
  }

  readonly get: RouteMethod<T, "GET", Prefix> = this.routeMethod("GET");
  readonly post: RouteMethod<T, "POST", Prefix> = this.routeMethod("POST");
  readonly put: RouteMethod<T, "PUT", Prefix> = this.routeMethod("PUT");
  readonly patch: RouteMethod<T, "PATCH", Prefix> = this.routeMethod("PATCH");
  readonly delete: RouteMethod<T, "DELETE", Prefix> = this.routeMethod("DELETE");
  readonly head: RouteMethod<T, "HEAD", Prefix> = this.routeMethod("HEAD");
  readonly options: RouteMethod<T, "OPTIONS", Prefix> = this.routeMethod("OPTIONS");
  readonly connect: RouteMethod<T, "CONNECT", Prefix> = this.routeMethod("CONNECT");
  readonly trace: RouteMethod<T, "TRACE", Prefix> = this.routeMethod("TRACE");

  private routeMethod<M extends HttpMethod>(method: M): RouteMethod<T, M, Prefix> {
    return ((path: string, handler: Handler<string, unknown, unknown, T>, options?: RouteOptions) => {
      this.addRoute(method, path, handler, options);
      return new Route(this.routes[this.routes.length - 1] as RouteRecord);
    }) as unknown as RouteMethod<T, M, Prefix>;
  }

  /** Registers a handler for a method and path; a second registration of the same method and path is an error. */
  addRoute<P extends string, A extends RouteArgShape = EmptyArgs, B = unknown>(
    method: HttpMethod | Lowercase<HttpMethod>,
    path: P,
    handler: Handler<P, InferRouteArgs<A>, B, T>,
    options: RouteOptions<A, B> = {},
  ): this {
    const upper = method.toUpperCase() as HttpMethod;
    if (!HTTP_METHODS.includes(upper)) throw new Error(`unknown HTTP method '${method}'`);
    if (typeof handler !== "function") throw new TypeError(`handler of ${upper} ${path} is not a function`);
    const full = joinPath(this.prefix, path);
    validatePattern(full);
    this.root().claim(upper, full);
    this.routes.push({
      method: upper,
      path: full,
      handler: handler as Handler<string, unknown, unknown>,
      // Standard Schema args are wrapped once here, so every later reader (dispatch, OpenAPI, MCP) sees specs.
      options: (options.args === undefined
        ? options
        : { ...options, args: toArgSpecs(options.args, `${upper} ${full}`) }) as RouteOptions<
        ArgShape,
        unknown
      >,
    });
    noteRouteSource(this.routes[this.routes.length - 1] as object);
    return this;
  }

  /**
   * Registers a WebSocket endpoint; `handler(ws, { globalDependencies, routerDependencies })` runs once per
   * connection. Returns the route, for `onConnect`/`onClose` (docs/websockets.md).
   */
  websocket<P extends string, A extends ArgShape = EmptyArgs>(
    path: P,
    handler: WebSocketHandler<PathParamsOf<P>, InferRouteArgs<A>>,
    options: WebSocketRouteOptions<A> = {},
  ): WebSocketRoute<PathParamsOf<P>, InferRouteArgs<A>, P, Prefix, A> {
    const full = joinPath(this.prefix, path);
    validatePattern(full);
    this.root().claim("WEBSOCKET", full);
    // Loaded on first use, like sessions and CORS below (start-up, docs/performance.md).
    const { WebSocketRoute } = require("../websocket/route.ts") as typeof WebSocketRouteModule;
    const route = new WebSocketRoute<PathParamsOf<P>, InferRouteArgs<A>, P, Prefix, A>(
      full,
      handler,
      options,
    );
    this.websockets.push(route as unknown as WebSocketRoute);
    noteRouteSource(route);
    return route;
  }

  /** `beforeRequest(fn)` for every route of this router, or `beforeRequest(path, fn)` for one path (all methods). */
  beforeRequest(fn: BeforeMiddleware): this;
  beforeRequest(path: string, fn: BeforeMiddleware): this;
  beforeRequest(pathOrFn: string | BeforeMiddleware, fn?: BeforeMiddleware): this {
    this.before.push(this.scoped(pathOrFn, fn));
    return this;
  }

  /** `afterRequest(fn)` for every route of this router, or `afterRequest(path, fn)` for one path (all methods). */
  afterRequest(fn: AfterMiddleware): this;
  afterRequest(path: string, fn: AfterMiddleware): this;
  afterRequest(pathOrFn: string | AfterMiddleware, fn?: AfterMiddleware): this {
    this.after.push(this.scoped(pathOrFn, fn));
    return this;
  }

  /** Values handed to this router's requests as `request.routerDependencies`. */
  inject(values: Partial<RouterDepsOf<T>> & object): this {
    this.dependencies = { ...this.dependencies, ...values };
    return this;
  }

  /** Authentication for this router's routes (overrides the app's). */
  configureAuthentication<C extends object>(handler: AuthenticationHandler<C>): this {
    this.authHandler = handler as unknown as AuthenticationHandler;
    return this;
  }

  /**
   * Limits how many requests each client may make to this router's routes (on the app: every route
   * and `/mcp`) per window; `false` turns off a limit declared around it. A route's `rateLimit`
   * option wins; fields it leaves out come from here (docs/rate-limiting.md).
   */
  rateLimit(options: RateLimitOptions | false): this {
    // The checks of a feature load when it is declared, like the feature (start-up, docs/performance.md).
    const { checkRateLimitSetting } = require("../rate-limit/options.ts") as typeof RateLimitOptionsModule;
    this.rateLimitSetting = checkRateLimitSetting(options, this.prefix === "" ? "the app" : this.prefix);
    return this;
  }

  /**
   * Caches the answers of this router's GET routes (docs/caching.md); `false` turns off a setting
   * declared around it. A route's `cache` option wins whole.
   */
  cacheResponses(options: CacheSetting): this {
    const { checkCacheSetting } = require("../cache/options.ts") as typeof CacheOptions;
    this.cacheSetting = checkCacheSetting(options, this.prefix === "" ? "the app" : this.prefix);
    return this;
  }

  /**
   * Cross-site request protection of this router's unsafe routes (docs/security.md): `false` turns
   * it off here, `{ trustedOrigins }` adds origins it lets through. A route's `csrf` option wins.
   */
  csrf(setting: CrossOriginSetting): this {
    this.crossOriginSetting = checkCrossOriginSetting(setting, this.prefix === "" ? "the app" : this.prefix);
    return this;
  }

  /**
   * Allow/deny lists of addresses and CIDR ranges for this router's routes (on the app: everything it
   * answers); a refused client gets 403 before the body is read. The same as the `ipFilter` option of
   * `new Webfw`/`new SubRouter`; `false` drops the filters declared around it (docs/client-address.md).
   */
  ipFilter(options: IpFilterSetting): this {
    const { checkIpFilter } = require("../ip-filter/options.ts") as typeof IpFilterOptions;
    this.ipFilterSetting = checkIpFilter(options, this.prefix === "" ? "the app" : `router ${this.prefix}`);
    return this;
  }

  /**
   * Cross-origin resource sharing for this router's routes (on the app: every path, errors
   * included): answers preflights and adds `Access-Control-Allow-Origin` for allowed origins. Once
   * per router; call it before other middlewares (docs/cors.md).
   */
  cors(options: CorsOptions = {}): this {
    // Loaded on first use (start-up, docs/performance.md, "Start-up and idle memory").
    (require("../cors/index.ts") as typeof CorsModule).installCors(this, options);
    return this;
  }

  /**
   * Signed-cookie sessions for this router's routes (on the app: every route): their requests get
   * `request.session`. Once per router; call it before middlewares that read the session
   * (docs/cookies-and-sessions.md).
   */
  sessions(options: SessionOptions): this {
    // Loaded on first use: an app without sessions does not pay for their modules at start
    // (idle memory and start-up, docs/performance.md).
    (require("../sessions/index.ts") as typeof SessionsModule).installSessions(this, options);
    return this;
  }

  /**
   * A new sub-router under `prefix`, already included here, typed like this router: its handlers see
   * the app's declared dependencies and claims, and its route handles carry the whole path
   * (`app.router("/api").get("/notes")` is `GET /api/notes` for `webfw/client`). docs/routing.md.
   */
  router<const P extends string, Outer extends string = Prefix>(
    // The receiver's prefix is read from `this` (not from the class's `Prefix`) so that the class
    // stays covariant in it: a router with a literal prefix still fits where any router is taken.
    this: RouterBase<T, Outer>,
    prefix: P,
    options: RouterOptions<T> = {},
  ): SubRouter<T, JoinPath<Outer, P>> {
    const mainFile = (this as { mainFile?: unknown }).mainFile;
    const child = new SubRouter<T, JoinPath<Outer, P>>(typeof mainFile === "string" ? mainFile : "", {
      ...options,
      prefix: prefix as unknown as JoinPath<Outer, P>,
    });
    this.includeRouter(child);
    return child;
  }

  /** Attaches a sub-router; its routes are registered under this router's prefix too. */
  includeRouter(router: RouterBase): this {
    if (router.parent) throw new Error("router is already included somewhere");
    if (router === this || this.ancestors().includes(router))
      throw new Error("a router cannot include itself");
    router.parent = this;
    router.rebase(this.prefix);
    this.children.push(router);
    const root = this.root();
    for (const route of router.allRoutes()) root.claim(route.method, route.path);
    for (const socket of router.allWebSockets()) root.claim("WEBSOCKET", socket.path);
    return this;
  }

  /** @internal Routes of this router and every descendant. */
  allRoutes(): RouteRecord[] {
    return [...this.routes, ...this.children.flatMap((child) => child.allRoutes())];
  }

  /** @internal WebSocket routes of this router and every descendant. */
  allWebSockets(): WebSocketRoute[] {
    return [...this.websockets, ...this.children.flatMap((child) => child.allWebSockets())];
  }

  /**
   * Sends `data` (text as is, bytes as UTF-8, anything else as JSON) to every subscriber of
   * `topic`: WebSocket clients that called `ws.subscribe(topic)` (or whose route's own topic it
   * is), `subscribe(topic)` streams, and with `configureBroadcast` those of every process and
   * machine. Callable from any handler, also one running in the worker pool (docs/websockets.md).
   */
  publish(topic: string, data: unknown): void {
    this.topicHub().publish(topic, topicText(data));
  }

  /**
   * The messages published to `topic` from now on, as an async iterator that ends when `signal`
   * aborts: `app.get("/feed", (r) => sse(app.subscribe("notes", r.raw.signal)))`.
   */
  subscribe(topic: string, signal?: AbortSignal): AsyncIterableIterator<string> {
    return this.topicHub().subscribe(topic, signal);
  }

  /** @internal The app's topic hub (one per root router, made on first use). */
  topicHub(): TopicHub {
    const root = this.root();
    root.hub ??= new TopicHub();
    return root.hub;
  }

  /** @internal The chain from the outermost router down to this one. */
  ancestors(): RouterBase[] {
    const chain: RouterBase[] = [];
    for (let node: RouterBase | null = this; node; node = node.parent) chain.unshift(node);
    return chain;
  }

  /** @internal Records method+path so duplicates are caught at registration; overridden by the app. */
  protected claim(method: string, path: string): void {
    const key = `${method} ${path}`;
    if (this.claimed.has(key)) throw new Error(`route ${key} is already registered`);
    this.claimed.add(key);
  }
  private readonly claimed = new Set<string>();

  private root(): RouterBase {
    let node: RouterBase = this;
    while (node.parent) node = node.parent;
    return node;
  }

  /** Re-prefixes this router's routes and middlewares when it is mounted under `outer`. */
  private rebase(outer: string): void {
    if (outer === "") return;
    for (const route of this.routes) route.path = joinPath(outer, route.path);
    for (const socket of this.websockets) socket.path = joinPath(outer, socket.path);
    for (const mw of [...this.before, ...this.after])
      if (mw.path !== null) mw.path = joinPath(outer, mw.path);
    (this as { prefix: string }).prefix = joinPath(outer, this.prefix);
    for (const child of this.children) child.rebase(outer);
  }

  private scoped<F>(pathOrFn: string | F, fn?: F): ScopedMiddleware<F> {
    if (typeof pathOrFn === "string") {
      if (typeof fn !== "function") throw new TypeError("middleware must be a function");
      return { path: joinPath(this.prefix, pathOrFn), fn };
    }
    if (typeof pathOrFn !== "function") throw new TypeError("middleware must be a function");
    return { path: null, fn: pathOrFn };
  }
}

/** A group of routes under a prefix, with its own middlewares, dependencies and authentication. */
export class SubRouter<T extends AppTypes = NoAppTypes, Prefix extends string = ""> extends RouterBase<
  T,
  Prefix
> {
  readonly mainFile: string;
  /**
   * `prefix` is kept as a literal type so that route handles (and `webfw/client`) know the full
   * path; with explicit type arguments give it too: `new SubRouter<{ router: R }, "/admin">(…)`.
   */
  constructor(mainFile: string, options: SubRouterOptions<Prefix, T> = {}) {
    super(options.prefix ?? "");
    this.mainFile = mainFile;
    // Each option is the same as calling its method; every one is checked now (docs/options.md#router-options).
    if (options.dependencies !== undefined) this.inject(options.dependencies);
    if (options.authentication !== undefined) this.configureAuthentication(options.authentication);
    if (options.rateLimit !== undefined) this.rateLimit(options.rateLimit);
    if (options.ipFilter !== undefined) this.ipFilter(options.ipFilter);
    if (options.timeoutMs !== undefined)
      this.timeoutSetting = checkTimeout(options.timeoutMs, `timeoutMs of router ${this.prefix || "/"}`);
  }

  /**
   * This class with the app's types given once, for routers in their own files (docs/routing.md):
   * `export const ApiRouter = SubRouter.typed<Api>()`, then `new ApiRouter(import.meta.path, { prefix: "/notes" })`.
   * The same class at run time; only the type parameters are bound.
   */
  static typed<T extends AppTypes>(): TypedSubRouter<T> {
    return SubRouter as unknown as TypedSubRouter<T>;
  }
}
