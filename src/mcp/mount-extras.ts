/**
 * The build step's view of MCP: which extra routes to compile (the RFC 9728
 * metadata), which routes are tools, the gate in front of the endpoint, and the
 * build's own endpoint made from all of it (src/mcp/endpoint.ts). Called by
 * src/mcp/mount.ts; loaded only for an app that uses MCP.
 */
import type { AuthenticationHandler } from "../auth/handler.ts";
import type { TracingHooks } from "../observability/hooks.ts";
import type { RouteRecord } from "../router/route.ts";
import type { RouteTable } from "../serve/runtime.ts";
import type { GateConfig, ToolAccess } from "./auth/gate.ts";
import { metadataRoutes } from "./auth/metadata.ts";
import { McpEndpoint } from "./endpoint.ts";
import type { Mcp } from "./index.ts";
import { Registry } from "./registry.ts";
import {
  bindRouteTools,
  describeRouteTools,
  type PlacedRoute,
  type RouteTool,
  type RouteToolSpec,
} from "./route-tools/collect.ts";
import type { McpContext } from "./types.ts";

export type { RouteTool } from "./route-tools/collect.ts";

export interface PreparedExtras {
  /** The metadata routes, compiled beside the app's own. */
  routes: RouteRecord[];
  specs: RouteToolSpec[];
}

/** Before compiling: the tool specs (names and schemas checked: errors stop the start) and the metadata routes. */
export function prepareMcpExtras(mcp: Mcp, placed: readonly PlacedRoute[]): PreparedExtras {
  const specs = describeRouteTools(placed, mcp.extras.filters, handToolNames(mcp));
  const auth = mcp.extras.auth;
  if (auth === null) return { routes: [], specs };
  const taken = new Set(placed.flatMap(({ route }) => (route.method === "GET" ? [route.path] : [])));
  const toolScopes = specs.flatMap((spec) => spec.access.scopes);
  return { routes: metadataRoutes(auth, toolScopes, taken), specs };
}

/** After compiling: the tools attached to their routes' dispatchers. */
export function bindMcpRouteTools(prepared: PreparedExtras, table: RouteTable): RouteTool[] {
  return bindRouteTools(prepared.specs, table);
}

/** Whether the app needs an MCP endpoint at all. */
export function wantsEndpoint(mcp: Mcp, tools: readonly RouteTool[]): boolean {
  return mcp.active || tools.length > 0 || mcp.extras.auth !== null;
}

/**
 * This build's endpoint: a copy of the app's declarations, the build's route tools (bound to its
 * dispatchers), its gate and its tracing hooks. Another build of the app makes its own.
 */
export function createEndpoint(
  mcp: Mcp,
  handler: AuthenticationHandler | null,
  tools: readonly RouteTool[],
  tracing: TracingHooks | undefined,
): McpEndpoint {
  const declarations = mcp.declarations();
  const routeTools = registerRouteTools(tools, tracing);
  return new McpEndpoint(declarations, {
    gate: gateConfig(mcp, handler, tools, routeTools),
    routeTools,
    tracing,
  });
}

/** The gate settings of the endpoint: the app's authentication, the endpoint's rule, each tool's. */
function gateConfig(
  mcp: Mcp,
  handler: AuthenticationHandler | null,
  tools: readonly RouteTool[],
  routeTools: Registry,
): GateConfig {
  if (mcp.extras.auth !== null && handler === null) {
    throw new Error(
      "app.mcp.configure({ auth }) needs app.configureAuthentication(...) to validate the tokens (docs/mcp.md)",
    );
  }
  const access = new Map<string, ToolAccess>(tools.map((tool) => [tool.name, tool.access]));
  // A route tool's UI resource is read under the tool's own rule (its authentication, its scopes).
  const resources = new Map<string, ToolAccess>();
  for (const tool of tools) {
    const uri = routeTools.tools.get(tool.name)?.uiResource;
    if (uri !== undefined) resources.set(uri, tool.access);
  }
  return { handler, authRequired: mcp.authRequired, auth: mcp.extras.auth, tools: access, resources };
}

/**
 * The build's route tools, in a registry of their own (the app's `app.mcp` registrations are not
 * touched, so another build of the app keeps its own). A call forwards the MCP caller's HTTP
 * request (its headers, its origin) and the call's abort signal to the route.
 */
function registerRouteTools(tools: readonly RouteTool[], tracing: TracingHooks | undefined): Registry {
  const registry = new Registry();
  for (const tool of tools) {
    registry.addTool(
      (input, ctx: McpContext) =>
        tool.call(input, {
          headers: ctx.request.raw.headers,
          origin: originOf(ctx.request.raw.url),
          signal: ctx.signal,
          requestId: ctx.request.id,
          address: ctx.request.ipAddr,
          propagate: tracing?.inject,
        }),
      {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: tool.annotations,
        ui: tool.ui,
        visibility: tool.visibility,
      },
    );
  }
  return registry;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined; // a bare target (no Host): the route's request gets http://localhost
  }
}

/** Names of the tools registered by hand (`app.mcp.tool`), which a route tool may not take. */
function handToolNames(mcp: Mcp): [string, string][] {
  return [...mcp.registry.tools.keys()].map((name) => [name, `app.mcp.tool '${name}'`]);
}
