/**
 * The MCP endpoint as a mount (src/plan/mount.ts): the RFC 9728 metadata
 * routes compiled beside the app's, route tools bound to their compiled
 * dispatchers, and `/mcp` itself (every method, so that its own 405 answers)
 * with the app-global middlewares. Each build gets an endpoint of its own
 * (src/mcp/endpoint.ts), made from what `app.mcp` declared: two builds of one
 * app share no session, gate, relay or route tool (docs/mcp.md). Nothing is
 * mounted for an app that registers nothing for MCP.
 */
import type { Request } from "../http/request.ts";
import type { Mount } from "../plan/mount.ts";
import type { RouterTree } from "../plan/tree.ts";
import type { RouteRecord } from "../router/route.ts";
import type { Dispatcher } from "../serve/dispatch.ts";
import type { McpTopicPort } from "./declarations.ts";
import type { McpEndpoint } from "./endpoint.ts";
import type { Mcp } from "./index.ts";
import type { RouteTool } from "./mount-extras.ts";

export const MCP_PATH = "/mcp";
const METHODS = ["POST", "GET", "DELETE", "PUT", "PATCH", "OPTIONS"];

/** What the MCP mount shows after a build (`built.mounted(app.mcpMount)`). */
export interface McpMounted {
  /** Routes exposed as MCP tools (`mcp` route option, `app.mcp.exposeRoutes`), bound to their dispatchers. */
  routeTools: RouteTool[];
  /** This build's endpoint (its sessions, gate, relays); `undefined` when the app's own route answers `/mcp`. */
  endpoint: McpEndpoint | undefined;
}

/** The app's topic hub, as MCP uses it for resource updates, and its Redis. */
export interface McpTopics {
  topics: () => McpTopicPort;
  /** Where the hub reaches other processes and machines (`configureBroadcast`), or null. */
  redis: () => { redisUrl: string; channel: string } | null;
}

/** The app's `Mcp`, made (and its module loaded) on first use: `made()` is false until then. */
export interface McpSource {
  get(): Mcp;
  made(): boolean;
}

export function mcpMount(source: McpSource, hub?: McpTopics): Mount<McpMounted> {
  return {
    name: "mcp",
    async prepare(tree) {
      // Nothing made and no route asks: the MCP modules are never loaded (idle memory).
      if (!source.made() && !tree.routes.some(({ route }) => route.options.mcp !== undefined)) return null;
      const mcp = source.get();
      // The endpoint's modules (gate, route tools, metadata) load only for an app that uses MCP.
      if (!inUse(mcp, tree)) return null;
      const { bindMcpRouteTools, createEndpoint, prepareMcpExtras, wantsEndpoint } = await import(
        "./mount-extras.ts"
      );
      // Route tools are described (and their names checked) before anything is compiled: a clash stops the start.
      const extras = prepareMcpExtras(mcp, tree.routes);
      return {
        routes: extras.routes,
        install(context) {
          const routeTools = bindMcpRouteTools(extras, context.table);
          if (!wantsEndpoint(mcp, routeTools)) return null;
          // The app's own route answers /mcp: no endpoint in this build.
          if (context.table.has(MCP_PATH)) return { exports: { routeTools, endpoint: undefined } };
          // This build's endpoint: its sessions, its gate (the endpoint's rule and every route tool's,
          // enforced in src/mcp/http-auth.ts), its tracing hooks (tool calls get their own spans).
          const endpoint = createEndpoint(mcp, tree.root.authHandler, routeTools, context.config.tracing);
          // The SDK is imported now, at start, so the first call does not pay for it.
          void Promise.all([import("./engine.ts"), import("./http.ts")]).catch(() => undefined);
          const methods = new Map<string, Dispatcher>();
          for (const method of METHODS) {
            // The MCP module reads the body itself (bounded by its own limit).
            const handler = (request: Request) => endpoint.handle(request);
            methods.set(
              method,
              context.wrap(context.builtIn(MCP_PATH, method, handler, { rawBody: true }), {
                method,
                pattern: MCP_PATH,
              }),
            );
          }
          context.table.set(MCP_PATH, methods);
          const redis = hub?.redis() ?? null;
          return {
            // With Redis, sessions answer from every machine: its connections are made before listening.
            starting: redis === null ? undefined : () => endpoint.useRedisSessions(redis),
            // The DNS-rebinding default applies on loopback: the endpoint needs to know where the server listens.
            listening: (server) => {
              endpoint.listening(server.hostname ?? "", redis !== null && hub ? hub.topics() : null);
            },
            // Open GET streams would hold the server open: this build's sessions end before the drain.
            stopping: () => void endpoint.close(),
            exports: { routeTools, endpoint },
          };
        },
      };
    },
  };
}

/**
 * Whether the build will serve `/mcp` (what `install` decides, told before it runs): something
 * registered on `app.mcp`, an auth rule for it, or a route exposed as a tool. For the OpenAPI document.
 */
export function servesMcpEndpoint(source: McpSource, routes: readonly RouteRecord[]): boolean {
  const tools = routes.some(({ options }) => options.mcp !== undefined && options.mcp !== false);
  if (!source.made()) return tools;
  const mcp = source.get();
  return (
    mcp.active || mcp.extras.auth !== null || tools || (mcp.extras.filters !== null && routes.length > 0)
  );
}

function inUse(mcp: Mcp, tree: RouterTree): boolean {
  return (
    mcp.active ||
    mcp.extras.filters !== null ||
    mcp.extras.auth !== null ||
    tree.routes.some(({ route }) => route.options.mcp !== undefined)
  );
}
