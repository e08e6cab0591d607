/**
 * `app.mcp`: register tools, resources and prompts; the app serves the Model
 * Context Protocol at `/mcp` for them (docs/mcp.md). This facade holds the
 * registrations and the options only. The protocol engine (the official SDK)
 * is imported on first use, so an app that registers nothing never loads it.
 */

import pkg from "../../package.json" with { type: "json" };
import type { ArgShape, InferArgs } from "../args/t.ts";
import type { AuthenticationHandler } from "../auth/handler.ts";
import { Request } from "../http/request.ts";
import type { TracingHooks } from "../observability/hooks.ts";
import { CHILD_INDEX_ENV, isSupervisedChild } from "../process/env.ts";
import type { AppTypes, NoAppTypes } from "../router/route.ts";
import type { GateConfig } from "./auth/gate.ts";
import type { McpAuthOptions } from "./auth/options.ts";
import type { EngineSettings } from "./engine.ts";
import type { McpEngine } from "./engine-types.ts";
import type { HttpConfig, SessionRelay } from "./http.ts";
import { isLoopbackHost, normaliseOrigin } from "./origin-guard.ts";
import type { ProcessRelay } from "./process-relay.ts";
import type { RedisSessionRelay } from "./redis-sessions.ts";
import {
  type PromptOptions,
  Registry,
  type ResourceOptions,
  type StoredFn,
  type ToolOptions,
} from "./registry.ts";
import type { RouteFilter } from "./route-tools/options.ts";
import { McpExtras } from "./route-tools/settings.ts";
import type { Awaitable, CompleteFn, McpContext, PromptMessageInput, ToolReturn } from "./types.ts";
import type { TemplateParams } from "./uri-template.ts";

export type { McpAuthOptions } from "./auth/options.ts";
export type { PromptOptions, ResourceOptions, ToolOptions } from "./registry.ts";
export type {
  RouteFilter,
  RouteInfo,
  RouteMcpOption,
  RouteToolOptions,
} from "./route-tools/options.ts";
export type * from "./types.ts";
export type { TemplateNames, TemplateParams } from "./uri-template.ts";
export { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "./versions.ts";

/** The values a tool or prompt function receives: typed by `args` when given, else the raw JSON object. */
export type McpArgs<S extends ArgShape> = InferArgs<S>;

export interface McpConfig {
  /**
   * Require the app's authentication (`configureAuthentication`) for every MCP request: 401 otherwise.
   * Default: true once `auth` is configured, else false.
   */
  authRequired?: boolean;
  /**
   * The endpoint as an OAuth 2.0 protected resource (MCP authorization): serves the RFC 9728
   * metadata, names it in every 401/403 challenge, requires `scopes` (docs/mcp.md, "Authorization").
   */
  auth?: McpAuthOptions;
  /**
   * Browser origins allowed to call the endpoint; requests with any other `Origin` get 403. Default:
   * on a server listening on loopback, only `http(s)://localhost`, `127.x.x.x` and `[::1]` (any port),
   * against DNS rebinding; on other addresses, any origin (the JSON Content-Type rule still applies).
   */
  allowedOrigins?: string[];
  /**
   * `Host` values (`name` or `name:port`) the endpoint answers; others get 403. Default: on a
   * server listening on loopback, only localhost names; on other addresses, any.
   */
  allowedHosts?: string[];
  serverName?: string;
  serverVersion?: string;
  /** Sent to clients in the `initialize` result. */
  instructions?: string;
  /** Largest accepted body in bytes (default 4 MiB); larger ones get 413. */
  maxBodySize?: number;
  /** No sessions: every POST stands alone (no GET stream, no subscriptions, no resumption). Default false. */
  stateless?: boolean;
  /** A session without requests or open streams for this long is closed (default 30 min; 0: never). */
  sessionIdleTimeoutMs?: number;
  /**
   * A session never used after `initialize` (no request, no GET stream) is closed after this long
   * idle (default 60 s; 0: `sessionIdleTimeoutMs` applies to it too).
   */
  unusedSessionTimeoutMs?: number;
  /**
   * Most sessions one process holds (default 10 000). When full, the oldest never-used session makes
   * room; an `initialize` is refused (503) only when every session is in use.
   */
  maxSessions?: number;
  /**
   * Most sessions one client (its identity, else its address) holds in one process (default 100).
   * Its own oldest never-used session makes room; when all are in use its `initialize` gets 429.
   */
  maxSessionsPerClient?: number;
  /** Items per page of `tools/list`, `resources/list`, … (default 100). */
  pageSize?: number;
  /** SSE events kept per session for `Last-Event-ID` resumption (default 1000). */
  eventLogSize?: number;
  /** `retry:` (ms) suggested to clients in SSE streams, for reconnection after a dropped stream. */
  retryIntervalMs?: number;
}

/** A tool function: its typed arguments and the call context. */
export type ToolFn<S extends ArgShape, T extends AppTypes = NoAppTypes> = (
  args: InferArgs<S>,
  ctx: McpContext<T>,
) => Awaitable<ToolReturn>;
/** A resource returns text, bytes (sent as a base64 `blob`), or `{ text | blob, mimeType? }` item(s). */
export type ResourceFn<U extends string, T extends AppTypes = NoAppTypes> = (
  params: TemplateParams<U>,
  ctx: McpContext<T>,
) => Awaitable<unknown>;
/** A prompt returns text (one user message) or a list of `{ role, content }` messages. */
export type PromptFn<S extends ArgShape, T extends AppTypes = NoAppTypes> = (
  args: InferArgs<S>,
  ctx: McpContext<T>,
) => Awaitable<string | PromptMessageInput[]>;

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

/** @internal What MCP needs of the app's topic hub (src/topics/hub.ts): resource updates. */
export interface McpTopicPort {
  publish(topic: string, text: string): void;
  listen(topic: string, listener: (text: string) => void): () => void;
}

/** The topic of resource updates on the app's hub (Redis relay). */
const RESOURCE_UPDATES = "webfw:mcp:resources/updated";

function positiveInteger(value: number, name: string, allowZero = false): number {
  if (!Number.isSafeInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new TypeError(`${name} must be a ${allowZero ? "non-negative" : "positive"} integer`);
  }
  return value;
}

export class Mcp<T extends AppTypes = NoAppTypes> {
  /** @internal */ readonly registry = new Registry();
  private readonly http: HttpConfig = {
    authRequired: false,
    allowedOrigins: [],
    allowedHosts: [],
    loopback: true,
    maxBodySize: DEFAULT_MAX_BODY,
    maxBatch: 100,
    stateless: false,
  };
  private readonly settings: EngineSettings = {
    name: "webfw",
    version: pkg.version,
    instructions: undefined,
    pageSize: 100,
    stateless: false,
    idleTimeoutMs: 30 * 60_000,
    unusedTimeoutMs: 60_000,
    maxSessions: 10_000,
    maxSessionsPerClient: 100,
    eventLogSize: 1000,
    retryIntervalMs: undefined,
    newId: () => crypto.randomUUID(),
  };
  /** Who may call (src/mcp/auth/gate.ts); set by the build, or by `useAuthentication`. */
  private gate: GateConfig | null = null;
  private relay: SessionRelay | null = null;
  private processRelay: ProcessRelay | null = null;
  private redisSessions: RedisSessionRelay | null = null;
  private relayStarting: Promise<void> | null = null;
  private topics: McpTopicPort | null = null;
  private unlistenTopics: (() => void) | null = null;
  private engine: Promise<McpEngine> | null = null;

  /** @internal Authorization and routes-as-tools settings (src/mcp/auth/, src/mcp/route-tools/). */
  readonly extras = new McpExtras();

  /** True once anything is registered: the app serves `/mcp` only then. */
  get active(): boolean {
    return this.registry.size > 0;
  }

  /** Whether every MCP request must be authenticated (`configure({ authRequired })`). */
  get authRequired(): boolean {
    return this.http.authRequired;
  }

  /**
   * Registers a tool. `args` specs type the function's parameter, convert the
   * call's arguments (a bad one gives an `isError` result naming it) and
   * generate the input schema. The name defaults to the function's name.
   */
  tool<S extends ArgShape = ArgShape>(fn: ToolFn<NoInfer<S>, T>, options: ToolOptions<S> = {}): this {
    this.registry.addTool(fn as StoredFn<Record<string, unknown>>, options);
    return this;
  }

  /**
   * Registers a resource. A URI with `{name}` placeholders is a template
   * (listed by `resources/templates/list`); its placeholders reach `fn` by name.
   */
  resource<U extends string>(uriTemplate: U, fn: ResourceFn<U, T>, options: ResourceOptions<U> = {}): this {
    this.registry.addResource(uriTemplate, fn as unknown as StoredFn<Record<string, string>>, {
      ...options,
      complete: options.complete as Record<string, CompleteFn> | undefined,
    });
    return this;
  }

  /** Registers a prompt; a returned string becomes one user message. The name defaults to the function's name. */
  prompt<S extends ArgShape = ArgShape>(fn: PromptFn<NoInfer<S>, T>, options: PromptOptions<S> = {}): this {
    this.registry.addPrompt(fn as StoredFn<Record<string, unknown>>, {
      ...options,
      complete: options.complete as Record<string, CompleteFn> | undefined,
    });
    return this;
  }

  /** Removes a tool at run time (connected clients get `notifications/tools/list_changed`). */
  removeTool(name: string): boolean {
    return this.registry.removeTool(name);
  }

  removePrompt(name: string): boolean {
    return this.registry.removePrompt(name);
  }

  removeResource(uriTemplate: string): boolean {
    return this.registry.removeResource(uriTemplate);
  }

  /**
   * Tells every session subscribed to `uri` (`resources/subscribe`) that it
   * changed (`notifications/resources/updated`), in every process with
   * `--processes`.
   */
  async notifyResourceUpdated(uri: string): Promise<void> {
    if (this.topics !== null) {
      // Through the app's Redis relay: every process and machine (this one too) tells its sessions.
      this.topics.publish(RESOURCE_UPDATES, uri);
      return;
    }
    await Promise.all([this.notifyLocal(uri), this.processRelay?.broadcast(uri)]);
  }

  /**
   * @internal With `configureBroadcast` (Redis): resource updates go through the app's topic hub,
   * so `notifyResourceUpdated` in any process of any machine reaches every subscribed session.
   */
  useTopics(topics: McpTopicPort): void {
    if (this.topics !== null) return;
    this.topics = topics;
    this.unlistenTopics = topics.listen(RESOURCE_UPDATES, (uri) => {
      void this.notifyLocal(uri);
    });
  }

  private async notifyLocal(uri: string): Promise<void> {
    if (this.engine === null) return;
    await (await this.engine).notifyResourceUpdated(uri);
  }

  /**
   * Exposes the app's routes as MCP tools (GET, POST, PUT, PATCH and DELETE; those
   * with `mcp: false` stay out), or only those `filter({ method, path, summary, tags })`
   * accepts. Each tool runs its route's whole pipeline (docs/mcp.md, "Routes as tools").
   */
  exposeRoutes(filter?: RouteFilter): this {
    this.extras.expose(filter);
    return this;
  }

  configure(options: McpConfig): this {
    const http = this.http;
    const settings = this.settings;
    if (options.auth !== undefined) {
      this.extras.configureAuth(options.auth);
      if (options.authRequired === undefined) http.authRequired = true;
    }
    if (options.authRequired !== undefined) http.authRequired = options.authRequired;
    if (options.allowedOrigins !== undefined)
      http.allowedOrigins = options.allowedOrigins.map(normaliseOrigin);
    if (options.allowedHosts !== undefined)
      http.allowedHosts = options.allowedHosts.map((host) => host.trim().toLowerCase());
    if (options.maxBodySize !== undefined)
      http.maxBodySize = positiveInteger(options.maxBodySize, "maxBodySize");
    if (options.stateless !== undefined) {
      http.stateless = options.stateless;
      settings.stateless = options.stateless;
    }
    if (options.serverName !== undefined) settings.name = options.serverName;
    if (options.serverVersion !== undefined) settings.version = options.serverVersion;
    if (options.instructions !== undefined) settings.instructions = options.instructions;
    if (options.pageSize !== undefined) settings.pageSize = positiveInteger(options.pageSize, "pageSize");
    if (options.sessionIdleTimeoutMs !== undefined)
      settings.idleTimeoutMs = positiveInteger(options.sessionIdleTimeoutMs, "sessionIdleTimeoutMs", true);
    if (options.unusedSessionTimeoutMs !== undefined)
      settings.unusedTimeoutMs = positiveInteger(
        options.unusedSessionTimeoutMs,
        "unusedSessionTimeoutMs",
        true,
      );
    if (options.maxSessions !== undefined)
      settings.maxSessions = positiveInteger(options.maxSessions, "maxSessions");
    if (options.maxSessionsPerClient !== undefined)
      settings.maxSessionsPerClient = positiveInteger(options.maxSessionsPerClient, "maxSessionsPerClient");
    if (options.eventLogSize !== undefined)
      settings.eventLogSize = positiveInteger(options.eventLogSize, "eventLogSize");
    if (options.retryIntervalMs !== undefined)
      settings.retryIntervalMs = positiveInteger(options.retryIntervalMs, "retryIntervalMs");
    return this;
  }

  /**
   * @internal The app's authentication handler (for `ctx.identity` and `authRequired`), with no
   * per-tool rules: a bare `Mcp` serving itself (tests). The build calls `useGate` instead.
   */
  useAuthentication(handler: AuthenticationHandler | null): void {
    this.gate = { handler, authRequired: this.http.authRequired, auth: this.extras.auth, tools: new Map() };
  }

  /** @internal Called by the build: the app's authentication, the endpoint's rule and every route tool's. */
  useGate(gate: GateConfig): void {
    this.gate = gate;
  }

  /** @internal Called by the mount: with tracing on, each tool call runs in a span (src/observability/). */
  useTracing(hooks: TracingHooks | undefined): void {
    this.settings.tracing = hooks;
  }

  /** @internal The build's tracing hooks; undefined when tracing is off. */
  get tracing(): TracingHooks | undefined {
    return this.settings.tracing;
  }

  /** @internal Told by `start()` where the server listens: the DNS-rebinding default applies on loopback. */
  listeningOn(hostname: string): void {
    this.http.loopback = isLoopbackHost(hostname);
  }

  /**
   * @internal Called before the server listens when the app configured Redis (`configureBroadcast`):
   * sessions get ids that name this process, and a request for a session of another process, on
   * this machine or another, is relayed to it through Redis (src/mcp/redis-sessions.ts).
   */
  async useRedisSessions(redis: { redisUrl: string; channel: string }): Promise<void> {
    if (this.http.stateless || this.redisSessions !== null) return;
    // Imported here: only an app with MCP and Redis needs it.
    const { RedisSessionRelay } = await import("./redis-sessions.ts");
    const relay = new RedisSessionRelay(redis.redisUrl, redis.channel, {
      handle: (request, body) => this.handle(request, body),
    });
    await relay.start();
    this.redisSessions = relay;
    this.settings.newId = relay.newId;
    this.relay = relay.relay;
  }

  /**
   * @internal Called once the server listens. In a `--processes` child without Redis, sessions get
   * ids that name this process and requests for another process's sessions are relayed there over
   * a Unix socket (src/mcp/process-relay.ts).
   */
  listening(hostname: string): void {
    this.listeningOn(hostname);
    if (this.relayStarting !== null || this.redisSessions !== null) return;
    if (!isSupervisedChild() || this.http.stateless) return;
    // Imported here: only a --processes child with MCP needs the relay (and its Unix socket).
    this.relayStarting = import("./process-relay.ts").then(({ ProcessRelay }) => {
      const relay = new ProcessRelay(process.ppid, process.env[CHILD_INDEX_ENV] ?? "0", {
        handle: (request, body) => this.handle(request, body),
        notifyLocal: (uri) => this.notifyLocal(uri),
      });
      relay.start();
      this.processRelay = relay;
      this.settings.newId = relay.newId;
      this.relay = relay.relay;
    });
  }

  /** @internal The engine, loaded once (the SDK is imported here, on first use). */
  loadEngine(): Promise<McpEngine> {
    this.engine ??= Promise.all([import("./engine.ts"), import("./http.ts")]).then(([{ createEngine }]) =>
      createEngine(this.registry, this.settings),
    );
    return this.engine;
  }

  /** @internal Ends every session (the app is stopping). */
  async close(): Promise<void> {
    this.unlistenTopics?.();
    this.unlistenTopics = null;
    this.topics = null;
    await this.relayStarting;
    this.relayStarting = null;
    this.processRelay?.stop();
    this.processRelay = null;
    this.redisSessions?.stop();
    this.redisSessions = null;
    this.relay = null;
    const engine = this.engine;
    this.engine = null;
    if (engine !== null) await (await engine).close();
  }

  /**
   * Answers one HTTP request to the endpoint. The app passes its webfw Request; a bare Web
   * Request (tests, an app mounting the endpoint itself) is wrapped, with no identity. `body`:
   * the bytes of a body the caller has already read (the stream can be read once).
   */
  async handle(input: Request | globalThis.Request, body?: Uint8Array): Promise<globalThis.Response> {
    const request = input instanceof Request ? input : new Request(input, {});
    try {
      // Loaded on the first request (the build preloads it with the engine when MCP is on).
      const { handleHttp } = await import("./http.ts");
      return await handleHttp(request, body, {
        config: this.http,
        // Without a build (a bare Mcp): no handler, so `authRequired` refuses everything (fails closed).
        gate: this.gate ?? {
          handler: null,
          authRequired: this.http.authRequired,
          auth: this.extras.auth,
          tools: new Map(),
        },
        engine: () => this.loadEngine(),
        relay: this.relay,
      });
    } catch {
      // Last line of defence for the "never 5xx for bad input" rule; every known path answers before this.
      return Response.json(
        { jsonrpc: "2.0", id: null, error: { code: -32603, message: "internal error" } },
        { status: 500 },
      );
    }
  }
}
