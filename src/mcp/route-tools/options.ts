import type { McpUi, McpUiVisibility } from "../apps/options.ts";

/**
 * The `mcp` route option: `app.get(path, handler, { mcp: true })` also exposes
 * the route as an MCP tool (docs/mcp.md, "Routes as tools").
 */

/** Hints about a tool's behaviour (all advisory; clients must not trust them from untrusted servers). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface RouteToolOptions {
  /** Tool name; default from the method and path (`GET /users/:id` → `get_users_by_id`). */
  name?: string;
  /** Human-readable title; default: the route's `summary`. */
  title?: string;
  /** What the tool does, for the model; default: the route's `description`, else its `summary`, else `METHOD path`. */
  description?: string;
  /** Hints; defaults from the method (GET read-only, PUT idempotent, DELETE destructive), yours win. */
  annotations?: ToolAnnotations;
  /**
   * The MCP caller must be authenticated to call this tool: HTTP 401 with the
   * `WWW-Authenticate` challenge before the route runs. Default: the route's `authRequired`.
   */
  authRequired?: boolean;
  /** OAuth scopes the caller's token must carry (403 `insufficient_scope` otherwise); implies authentication. */
  scopes?: string[];
  /**
   * The tool's UI (MCP Apps, docs/mcp-apps.md): an HTML string or `{ html | template | file | bundle, … }`;
   * a template renders the route's JSON response (`structuredContent`) and arguments.
   */
  ui?: McpUi;
  /** Who may see and call the tool (MCP Apps): `["app"]` keeps it for the UI only. */
  visibility?: McpUiVisibility[];
}

/** `true` exposes the route with defaults; `false` keeps it out of `exposeRoutes()` too. */
export type RouteMcpOption = boolean | RouteToolOptions;

/** What `exposeRoutes(filter)` is shown of a route to decide. */
export interface RouteInfo {
  method: string;
  /** The full pattern with every router prefix (`/api/users/:id`). */
  path: string;
  summary: string | undefined;
  tags: readonly string[];
}

export type RouteFilter = (route: RouteInfo) => boolean;

/** Methods whose routes can be tools; HEAD/OPTIONS/CONNECT/TRACE answer nothing a model can use. */
export const TOOL_METHODS: ReadonlySet<string> = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);
