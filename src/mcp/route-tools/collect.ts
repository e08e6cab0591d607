/**
 * Which routes are tools, and each one's description: chosen by the `mcp`
 * route option and by `app.mcp.exposeRoutes(filter?)`, named, schema'd and
 * checked when the app is built, so a clash or a bad name stops the start.
 * `bindRouteTools` then attaches each to its route's compiled dispatcher.
 */
import type { JsonSchema } from "../../args/json-schema.ts";
import type { AuthenticationHandler } from "../../auth/handler.ts";
import type { RouteRecord } from "../../router/route.ts";
import type { RouterBase } from "../../router/router-base.ts";
import type { RouteTable } from "../../serve/runtime.ts";
import type { McpUi, McpUiVisibility } from "../apps/options.ts";
import type { ToolAccess } from "../auth/gate.ts";
import { checkScopes } from "../auth/options.ts";
import type { ToolAnnotations } from "../types.ts";
import { type BuiltCall, buildCall, type Caller, dispatchCall } from "./invoke.ts";
import { checkToolName, defaultToolName, NameBook } from "./names.ts";
import type { RouteFilter, RouteToolOptions } from "./options.ts";
import { TOOL_METHODS } from "./options.ts";
import { errorResult, type ToolResult, toToolResult } from "./result.ts";
import { type InputPlan, inputPlan, type OutputPlan, outputPlan } from "./schemas.ts";

/** A route placed in its router chain (the app first). */
export interface PlacedRoute {
  route: RouteRecord;
  chain: RouterBase[];
}

/** A route-backed tool, before it is attached to its dispatcher. */
export interface RouteToolSpec {
  name: string;
  title: string | undefined;
  description: string;
  annotations: ToolAnnotations;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema | undefined;
  access: ToolAccess;
  /** MCP Apps: the tool's UI and visibility, checked when the tool is registered. */
  ui: McpUi | undefined;
  visibility: McpUiVisibility[] | undefined;
  method: string;
  path: string;
  input: InputPlan;
  output: OutputPlan | null;
}

export interface RouteTool extends RouteToolSpec {
  /** Runs the route for these arguments on behalf of `caller`; never throws. */
  call(args: unknown, caller: Caller): Promise<ToolResult>;
}

/** Largest route response turned into a tool result (the MCP endpoint's own body limit is 4 MiB). */
export const MAX_RESULT_BYTES = 4 * 1024 * 1024;

function methodHints(method: string): ToolAnnotations {
  switch (method) {
    case "GET":
      return { readOnlyHint: true };
    case "PUT":
      return { readOnlyHint: false, idempotentHint: true };
    case "DELETE":
      return { readOnlyHint: false, destructiveHint: true, idempotentHint: true };
    default:
      return { readOnlyHint: false };
  }
}

function checkedOptions(value: unknown, where: string): RouteToolOptions {
  if (value === true || value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(
      `${where}: the mcp option must be true, false or { name, title, description, annotations, authRequired, scopes, ui, visibility }`,
    );
  }
  const options = value as RouteToolOptions;
  for (const key of ["title", "description"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "string") {
      throw new TypeError(`${where}: mcp.${key} must be a string`);
    }
  }
  if (options.authRequired !== undefined && typeof options.authRequired !== "boolean") {
    throw new TypeError(`${where}: mcp.authRequired must be a boolean`);
  }
  if (
    options.annotations !== undefined &&
    (typeof options.annotations !== "object" || options.annotations === null)
  ) {
    throw new TypeError(`${where}: mcp.annotations must be an object`);
  }
  return options;
}

function nearestAuth(chain: RouterBase[]): AuthenticationHandler | null {
  for (let i = chain.length - 1; i >= 0; i--) {
    const handler = (chain[i] as RouterBase).authHandler;
    if (handler) return handler;
  }
  return null;
}

function isChosen(placed: PlacedRoute, filters: readonly RouteFilter[] | null): boolean {
  const { route } = placed;
  const option = route.options.mcp;
  if (option === false) return false;
  if (option !== undefined) return true;
  if (filters === null || !TOOL_METHODS.has(route.method)) return false;
  const info = {
    method: route.method,
    path: route.path,
    summary: route.options.summary,
    tags: route.options.tags ?? [],
  };
  return filters.some((filter) => filter(info));
}

/**
 * The tool specs of every chosen route. `taken` are the names already used by
 * tools registered with `app.mcp.tool` (a route may not shadow one).
 */
export function describeRouteTools(
  placed: readonly PlacedRoute[],
  filters: readonly RouteFilter[] | null,
  taken: Iterable<[string, string]> = [],
): RouteToolSpec[] {
  const book = new NameBook(taken);
  const specs: RouteToolSpec[] = [];
  for (const entry of placed) {
    if (!isChosen(entry, filters)) continue;
    const { route, chain } = entry;
    const where = `${route.method} ${route.path}`;
    if (!TOOL_METHODS.has(route.method)) {
      throw new Error(`${where}: only GET, POST, PUT, PATCH and DELETE routes can be MCP tools`);
    }
    const options = checkedOptions(route.options.mcp, where);
    const name = checkToolName(options.name ?? defaultToolName(route.method, route.path), where);
    book.claim(name, where);
    const scopes = checkScopes(options.scopes, `${where}: mcp.scopes`);
    const input = inputPlan(route);
    const output = outputPlan(route);
    const title = options.title ?? route.options.summary;
    const annotations: ToolAnnotations = { ...methodHints(route.method), ...options.annotations };
    if (title !== undefined && annotations.title === undefined) annotations.title = title;
    specs.push({
      name,
      title,
      description: options.description ?? route.options.description ?? route.options.summary ?? where,
      annotations,
      inputSchema: input.schema,
      outputSchema: output?.schema,
      access: {
        authRequired: options.authRequired ?? (route.options.authRequired === true || scopes.length > 0),
        scopes,
        handler: nearestAuth(chain),
      },
      ui: options.ui,
      visibility: options.visibility,
      method: route.method,
      path: route.path,
      input,
      output,
    });
  }
  return specs;
}

/** Attaches each spec to its route's dispatcher in the compiled table. */
export function bindRouteTools(specs: readonly RouteToolSpec[], table: RouteTable): RouteTool[] {
  return specs.map((spec) => {
    const dispatcher = table.get(spec.path)?.get(spec.method);
    if (dispatcher === undefined)
      throw new Error(`${spec.method} ${spec.path}: no compiled route for the MCP tool`);
    return {
      ...spec,
      async call(args, caller) {
        const built: BuiltCall = buildCall(spec.method, spec.path, spec.input, args, caller);
        if ("problem" in built) return errorResult(built.problem);
        try {
          const response = await dispatchCall(dispatcher, built);
          return await toToolResult(response, {
            maxBytes: MAX_RESULT_BYTES,
            uri: built.request.url,
            wrapped: spec.output?.wrapped ?? null,
          });
        } catch (error) {
          // Cancelled by the client, or a body that broke off: still an answer, never a protocol error.
          return errorResult(error instanceof Error ? error.message : String(error));
        }
      },
    };
  });
}
