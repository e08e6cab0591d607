import type { AppState } from "../app-state.ts";
import type { AuthenticationHandler, OpenApiSecurityScheme } from "../auth/handler.ts";
import type { RouteRecord } from "../router/route.ts";
import type { RouterBase } from "../router/router-base.ts";
import { timeLimitOf } from "../router/time-limit.ts";
import type { WebSocketRoute } from "../websocket/route.ts";
import { uniqueId } from "./operation-id.ts";
import { appPackageInfo } from "./package-info.ts";
import { routeParameters } from "./parameters.ts";
import { requestBody } from "./request-body.ts";
import { type RouteFacts, routeResponses } from "./responses.ts";
import { SchemaRegistry } from "./schema.ts";
import type { OpenApiDocument, ResolvedOpenApiOptions } from "./types.ts";
import { mcpPathItem, socketOperation } from "./upgrade-paths.ts";

/** OpenAPI has no `connect` operation; CONNECT routes are left out of the document. */
const DOCUMENTED_METHODS = new Set(["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"]);
/** The scheme of routes whose handler is unknown here (a start without one fails anyway, src/plan/plan.ts). */
const BEARER: OpenApiSecurityScheme = {
  name: "bearerAuth",
  scheme: { type: "http", scheme: "bearer", description: "`Authorization: Bearer <token>`" },
};

interface PlacedRoute {
  route: RouteRecord;
  /** Routers from the app down to the one that registered the route. */
  chain: RouterBase[];
}

/** Builds the OpenAPI 3.1 document of every route of `app` (except those with `includeInSchema: false`). */
export function generateDocument(app: AppState, options: ResolvedOpenApiOptions): OpenApiDocument {
  const registry = new SchemaRegistry();
  const paths: Record<string, Record<string, unknown>> = {};
  const tagNames: string[] = [];
  const usedIds = new Set<string>();
  const addTags = (tags: string[]) => {
    for (const tag of tags) if (!tagNames.includes(tag)) tagNames.push(tag);
  };
  // Each protecting handler names its own scheme (bearer JWT, http basic, …): AuthenticationHandler.securityScheme.
  const securitySchemes: Record<string, Record<string, unknown>> = {};
  const everyAnswer = commonHeaders(app);
  const problems = app.config.errors === "problem";

  for (const { route, chain } of placedRoutes(app, [app])) {
    if (route.options.includeInSchema === false || !DOCUMENTED_METHODS.has(route.method)) continue;
    const where = `${route.method} ${route.path}`;
    const operationId = uniqueId(route.method, route.path, usedIds);
    const tags = routeTags(route, chain, where);
    addTags(tags);
    const operation: Record<string, unknown> = {};
    if (tags.length > 0) operation.tags = tags;
    copyString(route.options.summary, "summary", operation, where);
    // Every operation has a title in reference pages and SDKs: the method and path when none is given.
    operation.summary ??= `${route.method} ${openApiPath(route.path)}`;
    copyString(route.options.description, "description", operation, where);
    operation.operationId = operationId;
    const parameters = routeParameters(route.path, route.options.args);
    if (parameters.length > 0) operation.parameters = parameters;
    const body = requestBody(route, registry, `${operationId}_body`);
    if (body !== undefined) operation.requestBody = body;
    const facts: RouteFacts = {
      route,
      operationId,
      where,
      problems,
      rateLimited: isRateLimited(chain, route),
      timed: timeLimitOf(chain, route.options.timeoutMs) > 0,
      headers: app.excludedHeaderPaths.has(route.path) ? requestIdHeader(app) : everyAnswer,
    };
    operation.responses = routeResponses(facts, registry);
    if (route.options.authRequired === true) {
      const { name, scheme } = nearestAuth(chain)?.securityScheme ?? BEARER;
      operation.security = [{ [name]: [] }];
      securitySchemes[name] = scheme;
    }
    if (route.options.deprecated === true) operation.deprecated = true;
    const pathKey = openApiPath(route.path);
    paths[pathKey] ??= {};
    (paths[pathKey] as Record<string, unknown>)[route.method.toLowerCase()] = operation;
  }

  // WebSocket routes: a GET that upgrades (101) or is refused (426).
  for (const { socket, chain } of placedSockets(app, [app])) {
    const pathKey = openApiPath(socket.path);
    if (paths[pathKey]?.get !== undefined) continue;
    const tags = routeTags({ options: {} } as RouteRecord, chain, `WebSocket ${socket.path}`);
    addTags(tags);
    const operation = socketOperation(socket, {
      operationId: uniqueId("GET", socket.path, usedIds),
      tags,
      registry,
      problems,
      headers: everyAnswer,
    });
    if (socket.options.authRequired === true) {
      const { name, scheme } = nearestAuth(chain)?.securityScheme ?? BEARER;
      operation.security = [{ [name]: [] }];
      securitySchemes[name] = scheme;
    }
    paths[pathKey] ??= {};
    (paths[pathKey] as Record<string, unknown>).get = operation;
  }

  // The MCP endpoint, when the app serves one (src/mcp/mount.ts).
  if (app.servesMcp?.() === true && paths["/mcp"] === undefined) {
    const item = mcpPathItem({ registry, problems, headers: everyAnswer, usedIds, tag: "mcp" });
    paths["/mcp"] = item;
    addTags(["mcp"]);
  }

  const pkg =
    options.title === undefined || options.version === undefined ? appPackageInfo(app.mainFile) : {};
  const info: OpenApiDocument["info"] = {
    title: options.title ?? pkg.name ?? "API",
    version: options.version ?? pkg.version ?? "0.0.0",
  };
  if (options.description !== undefined) info.description = options.description;
  // "/": the origin the document was fetched from, which is where "Try it out" and generated clients call.
  const servers = options.servers ?? [{ url: "/", description: "The server that serves this document" }];
  const named = registry.finish(paths);
  const document: OpenApiDocument = {
    openapi: "3.1.0",
    info,
    servers,
    paths: named.document as OpenApiDocument["paths"],
  };
  if (tagNames.length > 0) document.tags = tagNames.map((name) => ({ name }));
  const components: Record<string, Record<string, unknown>> = {};
  if (Object.keys(named.schemas).length > 0) components.schemas = named.schemas;
  if (Object.keys(securitySchemes).length > 0) components.securitySchemes = securitySchemes;
  if (Object.keys(components).length > 0) document.components = components;
  markPublicOperations(document);
  return document;
}

/**
 * With any security scheme in the document, an operation that requires none says so
 * (`security: []`): it is public, not forgotten. Schemes may be added by other features.
 */
export function markPublicOperations(document: OpenApiDocument): void {
  const schemes = document.components?.securitySchemes;
  if (schemes === undefined || Object.keys(schemes).length === 0) return;
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as Record<string, unknown>[]) {
      if (operation.security === undefined) operation.security = [];
    }
  }
}

/** Headers every answer carries: the request id (when on) and the app's own response headers. */
function commonHeaders(app: AppState): Record<string, unknown> {
  const out = requestIdHeader(app);
  for (const rule of app.responseHeaderRules) {
    out[rule.name] = {
      description: "Set by the app on every answer",
      schema: { type: "string", example: rule.value },
    };
  }
  return out;
}

function requestIdHeader(app: AppState): Record<string, unknown> {
  const id = app.config.requestId;
  if (id === null) return {};
  return { [id.header]: { description: "The request id (docs/request-ids.md)", schema: { type: "string" } } };
}

function placedRoutes(router: RouterBase, chain: RouterBase[]): PlacedRoute[] {
  return [
    ...router.routes.map((route) => ({ route, chain })),
    ...router.children.flatMap((child) => placedRoutes(child, [...chain, child])),
  ];
}

function placedSockets(
  router: RouterBase,
  chain: RouterBase[],
): { socket: WebSocketRoute; chain: RouterBase[] }[] {
  return [
    ...router.websockets.map((socket) => ({ socket, chain })),
    ...router.children.flatMap((child) => placedSockets(child, [...chain, child])),
  ];
}

/** The innermost rate-limit declaration of the route (its own option, else its routers') is not `false`. */
/** The authentication of the innermost router that configured one (as src/plan/tree.ts finds it). */
function nearestAuth(chain: RouterBase[]): AuthenticationHandler | null {
  for (let i = chain.length - 1; i >= 0; i--) {
    const handler = (chain[i] as RouterBase).authHandler;
    if (handler !== null) return handler;
  }
  return null;
}

function isRateLimited(chain: RouterBase[], route: RouteRecord): boolean {
  const declarations = [...chain.map((router) => router.rateLimitSetting), route.options.rateLimit];
  const innermost = declarations.filter((setting) => setting !== undefined).at(-1);
  return innermost !== undefined && innermost !== false;
}

/** `/users/:id/*rest` → `/users/{id}/{rest}`. */
export function openApiPath(pattern: string): string {
  return pattern
    .split("/")
    .map((segment) =>
      segment.startsWith(":") || segment.startsWith("*") ? `{${segment.slice(1)}}` : segment,
    )
    .join("/");
}

/** The innermost router prefix (without its leading slash), then the route's own `tags`. */
function routeTags(route: RouteRecord, chain: RouterBase[], where: string): string[] {
  const tags: string[] = [];
  for (let i = chain.length - 1; i > 0; i--) {
    const prefix = (chain[i] as RouterBase).prefix;
    if (prefix !== "") {
      tags.push(prefix.replace(/^\/+/, ""));
      break;
    }
  }
  const own = route.options.tags;
  if (own !== undefined) {
    if (!Array.isArray(own) || own.some((tag) => typeof tag !== "string")) {
      throw new TypeError(`tags of ${where} must be an array of strings`);
    }
    for (const tag of own) if (!tags.includes(tag)) tags.push(tag);
  }
  return tags;
}

function copyString(value: unknown, key: string, into: Record<string, unknown>, where: string): void {
  if (value === undefined) return;
  if (typeof value !== "string") throw new TypeError(`${key} of ${where} must be a string`);
  into[key] = value;
}
