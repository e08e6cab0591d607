/**
 * The line between `app.mcp` and the endpoint a build serves (docs/mcp.md, "The app's
 * declarations and each build's endpoint"). `Mcp` (src/mcp/index.ts) records what the user
 * declares; every build makes its own `McpEndpoint` (src/mcp/endpoint.ts) from a copy of it, with
 * its own sessions, gate, tracing and relays. This module is what both sides share: the shape of
 * the declarations and what `Mcp` may ask of the endpoints that are running.
 */
import type { EngineSettings } from "./engine.ts";
import type { HttpConfig } from "./http.ts";
import type { Registry } from "./registry.ts";
import type { McpExtras } from "./route-tools/settings.ts";

/** The HTTP settings `configure()` sets; where the server listens is the endpoint's own. */
export type DeclaredHttp = Omit<HttpConfig, "loopback">;
/** The engine settings `configure()` sets; tracing and session ids are the build's own. */
export type DeclaredSettings = Omit<EngineSettings, "tracing" | "newId">;

/**
 * What MCP needs of the app's topic hub (src/topics/hub.ts): resource updates. In no entry point,
 * but shipped in the declaration files: `RunningEndpoint` names it (docs/exports.md).
 */
export interface McpTopicPort {
  publish(topic: string, text: string): void;
  listen(topic: string, listener: (text: string) => void): () => void;
}

/** The topic of resource updates on the app's hub (Redis relay). */
export const RESOURCE_UPDATES = "webfw:mcp:resources/updated";

/** What `app.mcp` asks of a running endpoint (one per build). */
export interface RunningEndpoint {
  /** The hub resource updates travel through (`configureBroadcast`), or null: the endpoint tells its own sessions. */
  readonly updatesHub: McpTopicPort | null;
  /** Tells this endpoint's subscribed sessions (and, with `--processes`, its sibling processes'). */
  notifyResourceUpdated(uri: string): Promise<void>;
  /** Whether this build serves a route tool of that name (`app.mcp.tool` may not take it). */
  servesRouteTool(name: string): boolean;
}

/**
 * The endpoints of the builds that have not stopped. Held weakly: a build nobody stops (the
 * in-process client's, after `resetRequestClient()`) is not kept alive by the app.
 */
export class RunningEndpoints {
  private readonly refs = new Set<WeakRef<RunningEndpoint>>();

  /** Adds an endpoint; the returned function removes it (the build stopped). */
  add(endpoint: RunningEndpoint): () => void {
    const ref = new WeakRef(endpoint);
    this.refs.add(ref);
    return () => void this.refs.delete(ref);
  }

  *[Symbol.iterator](): IterableIterator<RunningEndpoint> {
    for (const ref of this.refs) {
      const endpoint = ref.deref();
      if (endpoint === undefined) this.refs.delete(ref);
      else yield endpoint;
    }
  }
}

/** @internal A copy of what `app.mcp` declared, taken by a build (src/mcp/endpoint.ts). */
export interface McpDeclarations {
  /** The app's tools, resources and prompts: shared by every build, changeable at run time. */
  readonly registry: Registry;
  /** Authorization and routes-as-tools settings (src/mcp/auth/, src/mcp/route-tools/). */
  readonly extras: McpExtras;
  /** A copy: `configure()` after the build does not change this build. */
  readonly http: DeclaredHttp;
  /** A copy, as `http`. */
  readonly settings: DeclaredSettings;
  /** Where a new endpoint registers itself, for `notifyResourceUpdated` and tool names. */
  readonly running: RunningEndpoints;
}
