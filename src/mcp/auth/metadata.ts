/**
 * The protected-resource metadata document (RFC 9728 §2–3), served at the
 * path-suffixed well-known path of the resource and at the bare well-known path
 * (older clients, and the MCP spec's fallback order, try that one).
 */
import { joinPath, type RouteRecord } from "../../router/route.ts";
import { type ResolvedMcpAuth, WELL_KNOWN } from "./options.ts";

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported: string[];
  resource_name?: string;
  resource_documentation?: string;
}

/** The document; `toolScopes` are the scopes of individual tools, advertised beside the endpoint's. */
export function metadataDocument(
  auth: ResolvedMcpAuth,
  toolScopes: readonly string[] = [],
): ProtectedResourceMetadata {
  const scopes = [...new Set([...auth.scopesSupported, ...toolScopes])];
  const document: ProtectedResourceMetadata = {
    resource: auth.resource,
    authorization_servers: auth.authorizationServers,
    // Tokens are read from the Authorization header only (RFC 6750 §2.1): the MCP spec forbids query tokens.
    bearer_methods_supported: ["header"],
  };
  if (scopes.length > 0) document.scopes_supported = scopes;
  if (auth.resourceName !== undefined) document.resource_name = auth.resourceName;
  if (auth.resourceDocumentation !== undefined) document.resource_documentation = auth.resourceDocumentation;
  return document;
}

/**
 * The GET routes serving the document, for the build to compile beside the app's
 * own (like `/openapi.json`): public, cacheable for a short while, and readable
 * from browser-based clients (`Access-Control-Allow-Origin: *`, it holds no secret).
 * A GET route the app registered itself on one of these paths wins.
 */
export function metadataRoutes(
  auth: ResolvedMcpAuth,
  toolScopes: readonly string[],
  taken: ReadonlySet<string>,
): RouteRecord[] {
  const body = JSON.stringify(metadataDocument(auth, toolScopes));
  const headers = {
    "content-type": "application/json",
    "cache-control": "public, max-age=3600",
    "access-control-allow-origin": "*",
  };
  const handler = () => new globalThis.Response(body, { headers });
  const paths = [...new Set([joinPath("", auth.metadataPath), WELL_KNOWN])];
  return paths
    .filter((path) => !taken.has(path))
    .map((path) => ({ method: "GET", path, handler, options: { includeInSchema: false } }));
}
