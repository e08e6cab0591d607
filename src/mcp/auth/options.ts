/**
 * `app.mcp.configure({ auth })`: the endpoint as an OAuth 2.0 protected resource
 * (MCP authorization spec, RFC 9728). Checked once, when configured, so a typo in
 * a URL stops the app instead of sending clients to a metadata document that lies.
 */
import { isLoopbackHost } from "../origin-guard.ts";

export interface McpAuthOptions {
  /**
   * The resource identifier: the public URL clients use for the MCP endpoint
   * (`https://api.example.com/mcp`). Tokens must be issued for it (their audience);
   * the metadata document and every challenge name it. `https`, or `http` on a
   * loopback host for local development.
   */
  resource: string;
  /** Issuer URLs of the OAuth authorization servers that issue tokens for this resource (at least one). */
  authorizationServers: string[];
  /**
   * Scopes every request to the endpoint needs; a token without them gets 403
   * `insufficient_scope`. Listed in `scopes_supported` with every tool's own scopes.
   */
  scopes?: string[];
  /** More scopes to advertise in `scopes_supported` without requiring them anywhere. */
  scopesSupported?: string[];
  /** `resource_name` of the metadata: a human-readable name of the server. */
  resourceName?: string;
  /** `resource_documentation`: a page that tells developers how to use the server. */
  resourceDocumentation?: string;
}

/** The checked options, with the URLs every part derives from them. */
export interface ResolvedMcpAuth {
  resource: string;
  authorizationServers: string[];
  scopes: string[];
  scopesSupported: string[];
  resourceName: string | undefined;
  resourceDocumentation: string | undefined;
  /** Where the metadata lives on this server: the RFC 9728 path-suffixed well-known path. */
  metadataPath: string;
  /** The absolute URL of that document, sent in `resource_metadata="…"`. */
  metadataUrl: string;
}

export const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/** RFC 6749 §3.3: scope tokens are printable ASCII without space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

function checkedUrl(value: unknown, what: string): URL {
  if (typeof value !== "string" || value === "") throw new TypeError(`mcp auth: ${what} must be a URL`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`mcp auth: ${what} '${value}' is not an absolute URL`);
  }
  const local = url.protocol === "http:" && isLoopbackHost(url.hostname.replace(/^\[|\]$/g, ""));
  if (url.protocol !== "https:" && !local) {
    throw new TypeError(`mcp auth: ${what} '${value}' must use https (http only on a loopback host)`);
  }
  if (url.hash !== "" || value.includes("#")) {
    throw new TypeError(`mcp auth: ${what} '${value}' must not have a fragment`);
  }
  return url;
}

export function checkScopes(scopes: unknown, what: string): string[] {
  if (scopes === undefined) return [];
  if (!Array.isArray(scopes)) throw new TypeError(`${what} must be an array of scope names`);
  for (const scope of scopes) {
    if (typeof scope !== "string" || !SCOPE_TOKEN.test(scope)) {
      throw new TypeError(`${what}: '${String(scope)}' is not a valid OAuth scope (RFC 6749 §3.3)`);
    }
  }
  return [...new Set(scopes as string[])];
}

/**
 * RFC 9728 §3.1: the well-known segment goes between the host and the resource's
 * path, so `https://h/mcp` has its metadata at `https://h/.well-known/oauth-protected-resource/mcp`.
 */
export function metadataPathFor(resource: URL): string {
  const path = resource.pathname === "/" ? "" : resource.pathname.replace(/\/+$/, "");
  return `${WELL_KNOWN}${path}`;
}

export function resolveMcpAuth(options: McpAuthOptions): ResolvedMcpAuth {
  if (typeof options !== "object" || options === null)
    throw new TypeError("mcp auth: options must be an object");
  const resource = checkedUrl(options.resource, "resource");
  const servers = options.authorizationServers;
  if (!Array.isArray(servers) || servers.length === 0) {
    throw new TypeError("mcp auth: authorizationServers must list at least one issuer URL");
  }
  const authorizationServers = servers.map((server) => {
    const url = checkedUrl(server, "authorization server");
    if (url.search !== "") throw new TypeError(`mcp auth: issuer '${server}' must not have a query`);
    return server;
  });
  const scopes = checkScopes(options.scopes, "mcp auth scopes");
  const extra = checkScopes(options.scopesSupported, "mcp auth scopesSupported");
  if (options.resourceDocumentation !== undefined)
    checkedUrl(options.resourceDocumentation, "resourceDocumentation");
  if (options.resourceName !== undefined && typeof options.resourceName !== "string") {
    throw new TypeError("mcp auth: resourceName must be a string");
  }
  const metadataPath = metadataPathFor(resource);
  return {
    // As given (not URL-normalised): clients compare it with the URL they connected to, and tokens carry it.
    resource: options.resource,
    authorizationServers,
    scopes,
    scopesSupported: [...new Set([...scopes, ...extra])],
    resourceName: options.resourceName,
    resourceDocumentation: options.resourceDocumentation,
    metadataPath,
    metadataUrl: `${resource.origin}${metadataPath}`,
  };
}
