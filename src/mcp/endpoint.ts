/**
 * One build's MCP endpoint (docs/mcp.md, "The app's declarations and each build's endpoint").
 * The MCP mount (src/mcp/mount.ts) makes one per build from a copy of what `app.mcp` declared:
 * its sessions (the engine), its gate, its tracing hooks, its route tools, its relays to other
 * processes and machines, and the handler of `/mcp` live here, so two builds of one app (the
 * in-process client and `start()`, or two `start()`s) share none of them, and stopping one
 * leaves the other as it was.
 */
import type { AuthenticationHandler } from "../auth/handler.ts";
import { Request } from "../http/request.ts";
import type { TracingHooks } from "../observability/hooks.ts";
import { CHILD_INDEX_ENV, isSupervisedChild } from "../process/env.ts";
import type { GateConfig } from "./auth/gate.ts";
import { Catalog } from "./catalog.ts";
import {
  type McpDeclarations,
  type McpTopicPort,
  RESOURCE_UPDATES,
  type RunningEndpoint,
} from "./declarations.ts";
import type { EngineSettings } from "./engine.ts";
import type { McpEngine } from "./engine-types.ts";
import type { HttpConfig, SessionRelay } from "./http.ts";
import type { Mcp } from "./index.ts";
import { isLoopbackHost } from "./origin-guard.ts";
import type { ProcessRelay } from "./process-relay.ts";
import type { RedisSessionRelay } from "./redis-sessions.ts";
import { Registry } from "./registry.ts";

export interface EndpointParts {
  /** Who may call: the app's authentication, the endpoint's rule and every route tool's. */
  gate: GateConfig;
  /** The build's route tools (and their UI resources), registered by src/mcp/mount-extras.ts. */
  routeTools: Registry;
  /** The build's tracing hooks; undefined when tracing is off (tool calls then get no span). */
  tracing: TracingHooks | undefined;
}

export class McpEndpoint implements RunningEndpoint {
  /** What the engine serves: the app's registrations, then this build's route tools. */
  readonly catalog: Catalog;
  private readonly http: HttpConfig;
  private readonly settings: EngineSettings;
  private readonly gate: GateConfig;
  private readonly routeTools: Registry;
  private relay: SessionRelay | null = null;
  private processRelay: ProcessRelay | null = null;
  private redisSessions: RedisSessionRelay | null = null;
  private relayStarting: Promise<void> | null = null;
  private hub: McpTopicPort | null = null;
  private unlistenHub: (() => void) | null = null;
  private engine: Promise<McpEngine> | null = null;
  private readonly unregister: () => void;

  constructor(declarations: McpDeclarations, parts: EndpointParts) {
    this.http = { ...declarations.http, loopback: true };
    this.settings = { ...declarations.settings, tracing: parts.tracing, newId: () => crypto.randomUUID() };
    this.gate = parts.gate;
    this.routeTools = parts.routeTools;
    this.catalog = new Catalog(declarations.registry, parts.routeTools);
    this.unregister = declarations.running.add(this);
  }

  /** The build's tracing hooks (a route tool's call carries the MCP call's trace to its route). */
  get tracing(): TracingHooks | undefined {
    return this.settings.tracing;
  }

  get updatesHub(): McpTopicPort | null {
    return this.hub;
  }

  servesRouteTool(name: string): boolean {
    return this.routeTools.tools.has(name);
  }

  /**
   * Answers one HTTP request to the endpoint. A bare Web Request (tests) is wrapped, with no
   * identity. `body`: the bytes of a body the caller has already read (the stream can be read once).
   */
  async handle(input: Request | globalThis.Request, body?: Uint8Array): Promise<globalThis.Response> {
    const request = input instanceof Request ? input : new Request(input, {});
    try {
      // Loaded on the first request (the mount preloads it with the engine).
      const { handleHttp } = await import("./http.ts");
      return await handleHttp(request, body, {
        config: this.http,
        gate: this.gate,
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

  /** The engine (this build's sessions), made on first use; the SDK is imported here. */
  loadEngine(): Promise<McpEngine> {
    this.engine ??= Promise.all([import("./engine.ts"), import("./http.ts")]).then(([{ createEngine }]) =>
      createEngine(this.catalog, this.settings),
    );
    return this.engine;
  }

  /**
   * Before the server listens, when the app configured Redis (`configureBroadcast`): sessions get
   * ids that name this endpoint, and a request for a session of another process or machine is
   * relayed to it through Redis (src/mcp/redis-sessions.ts).
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
   * The server listens on `hostname` (the DNS-rebinding default applies on loopback). With the
   * app's topic hub (Redis), resource updates arrive through it. In a `--processes` child without
   * Redis, sessions get ids that name this process and requests for another process's sessions
   * are relayed there over a Unix socket (src/mcp/process-relay.ts).
   */
  listening(hostname: string, hub: McpTopicPort | null = null): void {
    this.http.loopback = isLoopbackHost(hostname);
    if (hub !== null && this.hub === null) {
      this.hub = hub;
      this.unlistenHub = hub.listen(RESOURCE_UPDATES, (uri) => void this.notifyLocal(uri));
    }
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

  async notifyResourceUpdated(uri: string): Promise<void> {
    await Promise.all([this.notifyLocal(uri), this.processRelay?.broadcast(uri)]);
  }

  private async notifyLocal(uri: string): Promise<void> {
    if (this.engine === null) return;
    await (await this.engine).notifyResourceUpdated(uri);
  }

  /** Ends this build's sessions and relays (its server is stopping); other builds keep theirs. */
  async close(): Promise<void> {
    this.unregister();
    this.unlistenHub?.();
    this.unlistenHub = null;
    this.hub = null;
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
}

/**
 * An endpoint for `mcp` alone, outside any app build (tests serve it with their own
 * `Bun.serve`): no route tools, no tracing, and the given authentication (none: a request is
 * anonymous, and `authRequired` refuses every one, failing closed).
 */
export function standaloneEndpoint(
  mcp: Mcp,
  authentication: AuthenticationHandler | null = null,
): McpEndpoint {
  const declarations = mcp.declarations();
  return new McpEndpoint(declarations, {
    gate: {
      handler: authentication,
      authRequired: declarations.http.authRequired,
      auth: declarations.extras.auth,
      tools: new Map(),
    },
    routeTools: new Registry(),
    tracing: undefined,
  });
}
