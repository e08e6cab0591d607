/**
 * `app.mcp`: register tools, resources and prompts; the app serves the Model
 * Context Protocol at `/mcp` for them (docs/mcp.md). This facade holds the
 * registrations and the options only; each build serves them through its own
 * endpoint (src/mcp/endpoint.ts). The protocol engine (the official SDK) is
 * imported on first use, so an app that registers nothing never loads it.
 */

import pkg from "../../package.json" with { type: "json" };
import type { ArgShape, InferArgs } from "../args/t.ts";
import type { AppTypes, NoAppTypes } from "../router/route.ts";
import type { McpAuthOptions } from "./auth/options.ts";
import {
  type DeclaredHttp,
  type DeclaredSettings,
  type McpDeclarations,
  type McpTopicPort,
  RESOURCE_UPDATES,
  RunningEndpoints,
} from "./declarations.ts";
import { normaliseOrigin } from "./origin-guard.ts";
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

export type { McpTopicPort } from "./declarations.ts";

function positiveInteger(value: number, name: string, allowZero = false): number {
  if (!Number.isSafeInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new TypeError(`${name} must be a ${allowZero ? "non-negative" : "positive"} integer`);
  }
  return value;
}

/**
 * What the user declares for MCP (docs/mcp.md): tools, resources, prompts, routes exposed as
 * tools, and the endpoint's options. Nothing here runs a request: every build makes its own
 * endpoint (src/mcp/endpoint.ts: sessions, gate, tracing, relays) from a copy of these
 * declarations, so two builds of one app share no state (docs/mcp.md, "The app's declarations
 * and each build's endpoint").
 */
export class Mcp<T extends AppTypes = NoAppTypes> {
  /** The endpoints of running builds: for `notifyResourceUpdated`, and the names route tools hold. */
  private readonly running = new RunningEndpoints();
  /** @internal */ readonly registry = new Registry((name) => this.routeToolNamed(name));
  private readonly http: DeclaredHttp = {
    authRequired: false,
    allowedOrigins: [],
    allowedHosts: [],
    maxBodySize: DEFAULT_MAX_BODY,
    maxBatch: 100,
    stateless: false,
  };
  private readonly settings: DeclaredSettings = {
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
  };

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
   * `--processes`, and every running build of the app.
   */
  async notifyResourceUpdated(uri: string): Promise<void> {
    // Through the app's Redis relay (`configureBroadcast`): every process and machine (this one
    // too) tells its sessions; once per hub, however many builds listen to it.
    const hubs = new Set<McpTopicPort>();
    const local: Promise<void>[] = [];
    for (const endpoint of this.running) {
      if (endpoint.updatesHub !== null) hubs.add(endpoint.updatesHub);
      else local.push(endpoint.notifyResourceUpdated(uri));
    }
    for (const hub of hubs) hub.publish(RESOURCE_UPDATES, uri);
    await Promise.all(local);
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

  /** The endpoint's options (docs/mcp.md, "`app.mcp.configure(options)`"), read when the app is built. */
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
   * @internal A copy of the declarations for a build's endpoint (src/mcp/endpoint.ts): the
   * options as they are now, the registrations (shared, so that run-time changes reach it).
   */
  declarations(): McpDeclarations {
    return {
      registry: this.registry,
      extras: this.extras,
      http: {
        ...this.http,
        allowedOrigins: [...this.http.allowedOrigins],
        allowedHosts: [...this.http.allowedHosts],
      },
      settings: { ...this.settings },
      running: this.running,
    };
  }

  private routeToolNamed(name: string): boolean {
    for (const endpoint of this.running) if (endpoint.servesRouteTool(name)) return true;
    return false;
  }
}
