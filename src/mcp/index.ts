/**
 * `app.mcp`: register tools, resources and prompts; `handle()` answers the
 * Model Context Protocol endpoint (`POST /mcp`) for them.
 */

import pkg from "../../package.json" with { type: "json" };
import type { JsonSchema } from "../args/json-schema.ts";
import type { ArgShape, InferArgs } from "../args/t.ts";
import type { McpAuthOptions } from "./auth/options.ts";
import type { ServerInfo } from "./handlers.ts";
import { isLoopbackHost } from "./origin-guard.ts";
import type { Awaitable, PromptArgument, PromptMessageInput } from "./registry.ts";
import { Registry } from "./registry.ts";
import type { RouteFilter } from "./route-tools/options.ts";
import { McpExtras } from "./route-tools/settings.ts";
import { type AuthCheck, handleHttp, normaliseOrigins, type TransportConfig } from "./transport.ts";
import type { TemplateParams } from "./uri-template.ts";

export type { McpAuthOptions } from "./auth/options.ts";
export { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "./handlers.ts";
export type { PromptArgument, PromptMessageInput } from "./registry.ts";
export type {
  RouteFilter,
  RouteInfo,
  RouteMcpOption,
  RouteToolOptions,
  ToolAnnotations,
} from "./route-tools/options.ts";
export type { AuthCheck } from "./transport.ts";
export type { TemplateNames, TemplateParams } from "./uri-template.ts";

/** The values a tool or prompt function receives: typed by `args` when given, else the raw JSON object. */
export type McpArgs<S extends ArgShape> = InferArgs<S>;

export interface ToolOptions<S extends ArgShape> {
  name?: string;
  description?: string;
  /** Explicit JSON Schema (an object schema); wins over the one generated from `args`. */
  inputSchema?: JsonSchema;
  /** Typed arguments (`t`): convert and validate the call's arguments and generate `inputSchema`. */
  args?: S;
}

export interface ResourceOptions {
  name?: string;
  description?: string;
  mimeType?: string;
}

export interface PromptOptions<S extends ArgShape> {
  name?: string;
  description?: string;
  /** Explicit argument list; wins over the one generated from `args`. */
  arguments?: PromptArgument[];
  /** Typed arguments (`t`): convert the (string) prompt arguments and generate `arguments`. */
  args?: S;
}

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
}

/** A tool returns text; any other value is sent as its JSON text. */
export type ToolFn<S extends ArgShape> = (args: InferArgs<S>) => Awaitable<unknown>;
/** A resource returns text (or bytes, sent as a base64 `blob`). */
export type ResourceFn<U extends string> = (params: TemplateParams<U>) => Awaitable<unknown>;
/** A prompt returns text (one user message) or a list of `{ role, content }` messages. */
export type PromptFn<S extends ArgShape> = (args: InferArgs<S>) => Awaitable<string | PromptMessageInput[]>;

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

export class Mcp {
  private readonly registry = new Registry();
  private readonly config: TransportConfig = {
    authRequired: false,
    allowedOrigins: [],
    allowedHosts: [],
    loopback: true,
    maxBodySize: DEFAULT_MAX_BODY,
    maxBatch: 100,
    server: { name: "webfw", version: pkg.version },
  };

  /** @internal Authorization and routes-as-tools settings (src/mcp/auth/, src/mcp/route-tools/). */
  readonly extras = new McpExtras();

  /** True once anything is registered: the app serves `/mcp` only then. */
  get active(): boolean {
    return this.registry.size > 0;
  }

  /** Whether `handle` will ask the `auth` callback (set by `configure({ authRequired })`). */
  get authRequired(): boolean {
    return this.config.authRequired;
  }

  /**
   * Registers a tool. `args` specs type the function's parameter, convert the
   * call's arguments (a bad one gives an `isError` result naming it) and
   * generate the input schema. The name defaults to the function's name.
   */
  tool<S extends ArgShape = ArgShape>(fn: ToolFn<NoInfer<S>>, options: ToolOptions<S> = {}): this {
    this.registry.addTool(fn as (input: Record<string, unknown>) => Awaitable<unknown>, options);
    return this;
  }

  /**
   * Registers a resource. A URI with `{name}` placeholders is a template
   * (listed by `resources/templates/list`); its placeholders reach `fn` by name.
   */
  resource<U extends string>(uriTemplate: U, fn: ResourceFn<U>, options: ResourceOptions = {}): this {
    this.registry.addResource(
      uriTemplate,
      fn as (params: Record<string, string>) => Awaitable<unknown>,
      options,
    );
    return this;
  }

  /** Registers a prompt; a returned string becomes one user message. The name defaults to the function's name. */
  prompt<S extends ArgShape = ArgShape>(fn: PromptFn<NoInfer<S>>, options: PromptOptions<S> = {}): this {
    this.registry.addPrompt(fn as (input: Record<string, unknown>) => Awaitable<unknown>, options);
    return this;
  }

  /** @internal Told by `start()` where the server listens: the DNS-rebinding default applies on loopback. */
  listeningOn(hostname: string): void {
    this.config.loopback = isLoopbackHost(hostname);
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
    if (options.auth !== undefined) {
      this.extras.configureAuth(options.auth);
      if (options.authRequired === undefined) this.config.authRequired = true;
    }
    if (options.authRequired !== undefined) this.config.authRequired = options.authRequired;
    if (options.allowedOrigins !== undefined)
      this.config.allowedOrigins = normaliseOrigins(options.allowedOrigins);
    if (options.allowedHosts !== undefined)
      this.config.allowedHosts = options.allowedHosts.map((host) => host.trim().toLowerCase());
    if (options.maxBodySize !== undefined) {
      if (!Number.isSafeInteger(options.maxBodySize) || options.maxBodySize <= 0) {
        throw new TypeError("maxBodySize must be a positive integer");
      }
      this.config.maxBodySize = options.maxBodySize;
    }
    const server: ServerInfo = { ...this.config.server };
    if (options.serverName !== undefined) server.name = options.serverName;
    if (options.serverVersion !== undefined) server.version = options.serverVersion;
    if (options.instructions !== undefined) server.instructions = options.instructions;
    this.config.server = server;
    return this;
  }

  /**
   * Answers one HTTP request to the endpoint (any method: non-POST gets 405).
   * `auth` is consulted only when `authRequired` is set; without it every
   * request is then refused (401), so a missing authenticator fails closed.
   * `body` is for a caller that has already read the request body (the
   * stream can be read once); without it the body is read here, bounded.
   */
  async handle(
    request: globalThis.Request,
    auth?: AuthCheck,
    body?: Uint8Array,
  ): Promise<globalThis.Response> {
    try {
      return await handleHttp(request, this.registry, this.config, auth, body);
    } catch {
      // Last line of defence for the "never 5xx" rule; every known path answers before this.
      return new Response(
        JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "bad request" } }),
        { status: 400, headers: { "content-type": "application/json" } },
      );
    }
  }
}
