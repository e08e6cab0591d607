/**
 * The build step's view of MCP authorization and routes-as-tools: which extra
 * routes to compile (the RFC 9728 metadata), which routes are tools, and the
 * gate in front of the endpoint. Called by src/build.ts; nothing here runs
 * for an app that uses neither (no `mcp` route option, no `exposeRoutes`, no
 * `configure({ auth })`).
 */
import type { AuthenticationHandler } from "../auth/handler.ts";
import type { RouteRecord } from "../router/route.ts";
import type { RouteTable } from "../serve/fallback.ts";
import type { GateConfig, ToolAccess } from "./auth/gate.ts";
import { metadataRoutes } from "./auth/metadata.ts";
import type { Mcp } from "./index.ts";
import {
  bindRouteTools,
  describeRouteTools,
  type PlacedRoute,
  type RouteTool,
  type RouteToolSpec,
} from "./route-tools/collect.ts";

export type { RouteTool } from "./route-tools/collect.ts";

export interface PreparedExtras {
  /** The metadata routes, compiled beside the app's own. */
  routes: RouteRecord[];
  specs: RouteToolSpec[];
}

/** Before compiling: the tool specs (names and schemas checked: errors stop the start) and the metadata routes. */
export function prepareMcpExtras(mcp: Mcp, placed: readonly PlacedRoute[]): PreparedExtras {
  const specs = describeRouteTools(placed, mcp.extras.filters);
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

/** The gate settings of the endpoint: the app's authentication, the endpoint's rule, each tool's. */
export function gateConfig(
  mcp: Mcp,
  handler: AuthenticationHandler | null,
  tools: readonly RouteTool[],
): GateConfig {
  if (mcp.extras.auth !== null && handler === null) {
    throw new Error(
      "app.mcp.configure({ auth }) needs app.configureAuthentication(...) to validate the tokens (docs/mcp.md)",
    );
  }
  const access = new Map<string, ToolAccess>(tools.map((tool) => [tool.name, tool.access]));
  return { handler, authRequired: mcp.authRequired, auth: mcp.extras.auth, tools: access };
}

export { checkEndpoint, checkTools, hasToolRules, parsedBody } from "./auth/gate.ts";
