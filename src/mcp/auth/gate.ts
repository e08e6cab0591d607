/**
 * Authorization of the MCP endpoint at the HTTP level, before any JSON-RPC is
 * answered: the MCP authorization spec puts "you need a token" (401) and "your
 * token lacks a scope" (403 `insufficient_scope`) in HTTP statuses with a
 * `WWW-Authenticate` challenge, so that a client can run the OAuth flow (or step
 * up its scopes) and retry. This covers the whole endpoint (`authRequired`,
 * `scopes`) and single tools (their `authRequired`/`scopes`, found by peeking
 * at the `tools/call` messages of a POST body). Everything else about the body
 * (malformed JSON, bad params) is left for the engine to answer.
 */
import type { AuthenticationHandler } from "../../auth/handler.ts";
import type { Identity } from "../../auth/identity.ts";
import type { Request } from "../../http/request.ts";
import { ContextSlot, contextOf } from "../../http/request-context.ts";
import { HttpError } from "../../response/errors.ts";
import { bearerChallenge } from "./challenge.ts";
import type { ResolvedMcpAuth } from "./options.ts";
import { missingScopes } from "./scopes.ts";

/** What one tool needs from its caller beyond what the endpoint needs. */
export interface ToolAccess {
  authRequired: boolean;
  scopes: readonly string[];
  /** The authentication of the tool's route (a SubRouter may have its own); null: the endpoint's. */
  handler: AuthenticationHandler | null;
}

export interface GateConfig {
  /** The endpoint's authentication handler (the app's); null when none is configured. */
  handler: AuthenticationHandler | null;
  /** Every request to the endpoint must be authenticated. */
  authRequired: boolean;
  /** `configure({ auth })`; null: plain `Bearer` challenges, no scopes. */
  auth: ResolvedMcpAuth | null;
  tools: ReadonlyMap<string, ToolAccess>;
  /**
   * The UI resources (MCP Apps) of tools with their own rule, by `ui://` URI: reading one needs
   * what calling its tool needs (docs/mcp-apps.md, "Authorization").
   */
  resources?: ReadonlyMap<string, ToolAccess>;
}

const UNAUTHORIZED = -32001;
const FORBIDDEN = -32003;

function refusal(status: 401 | 403, code: number, message: string, challenge: string): globalThis.Response {
  return new globalThis.Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }), {
    status,
    headers: { "content-type": "application/json", "www-authenticate": challenge },
  });
}

/** 401: no identity. `invalid_token` when a credential was sent and refused (RFC 6750 §3.1). */
function unauthorized(
  config: GateConfig,
  tokenSent: boolean,
  scopes: readonly string[],
): globalThis.Response {
  if (config.auth === null) {
    const challenge = config.handler?.challenge ?? "Bearer";
    return refusal(401, UNAUTHORIZED, "Unauthorized", challenge);
  }
  const challenge = bearerChallenge({
    resourceMetadata: config.auth.metadataUrl,
    scopes,
    ...(tokenSent ? { error: "invalid_token" as const, description: "the access token is not valid" } : {}),
  });
  return refusal(401, UNAUTHORIZED, "Unauthorized", challenge);
}

function forbidden(config: GateConfig, required: readonly string[], missing: string[]): globalThis.Response {
  const message = `insufficient_scope: the token lacks ${missing.join(" ")}`;
  const challenge = config.auth
    ? bearerChallenge({
        resourceMetadata: config.auth.metadataUrl,
        error: "insufficient_scope",
        scopes: required,
        description: `requires scope ${required.join(" ")}`,
      })
    : `Bearer error="insufficient_scope", scope="${required.join(" ")}"`;
  return refusal(403, FORBIDDEN, message, challenge);
}

const IDENTITIES = new ContextSlot<Identities>();

/** One cache per request, shared by `checkEndpoint` and `checkTools`: a token is validated once per handler. */
function identitiesOf(request: Request): Identities {
  const context = contextOf(request.context);
  request.context = context;
  let identities = IDENTITIES.get(context);
  if (identities === undefined) {
    identities = new Identities(request);
    IDENTITIES.set(context, identities);
  }
  return identities;
}

/** Authenticates once per handler; a handler that throws refuses (it must not crash the endpoint). */
class Identities {
  private readonly cache = new Map<AuthenticationHandler, Identity | null>();
  constructor(private readonly request: Request) {}

  tokenSent(handler: AuthenticationHandler | null): boolean {
    return handler !== null && handler.tokenGetter.getToken(this.request) !== null;
  }

  /**
   * The handler's identity for this request. As on routes, a handler runs only when a credential
   * is present, unless authentication is required: then it always decides (it may read more than
   * the token getter finds).
   */
  async of(handler: AuthenticationHandler | null, required = false): Promise<Identity | null> {
    if (handler === null || (!required && !this.tokenSent(handler))) return null;
    if (this.cache.has(handler)) return this.cache.get(handler) ?? null;
    let identity: Identity | null = null;
    try {
      identity = ((await handler.authenticate(this.request)) as Identity | null) ?? null;
    } catch (error) {
      // An answer the handler chose (503: JwtAuth's key server is down) is the endpoint's answer.
      if (error instanceof HttpError) throw error;
      identity = null;
    }
    this.cache.set(handler, identity);
    return identity;
  }
}

/** The tool names of the `tools/call` messages in a parsed JSON-RPC body (one message or a batch). */
export function calledTools(body: unknown): string[] {
  return paramsOf(body, "tools/call", "name");
}

/** The URIs of the `resources/read` messages in a parsed JSON-RPC body. */
export function readResources(body: unknown): string[] {
  return paramsOf(body, "resources/read", "uri");
}

function paramsOf(body: unknown, wanted: string, field: string): string[] {
  const values: string[] = [];
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== "object" || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: unknown };
    if (method !== wanted || typeof params !== "object" || params === null) continue;
    const value = (params as Record<string, unknown>)[field];
    if (typeof value === "string") values.push(value);
  }
  return values;
}

/**
 * The endpoint's own rule, for every request but a CORS preflight: sets
 * `request.identity` (with the app's handler, whenever a credential is sent)
 * and answers 401/403 when `authRequired` or `auth.scopes` are not met.
 */
export async function checkEndpoint(
  request: Request,
  config: GateConfig,
): Promise<globalThis.Response | null> {
  if (request.method === "OPTIONS") return null;
  const identities = identitiesOf(request);
  const identity = await identities.of(config.handler, config.authRequired);
  request.identity = identity;
  const endpointScopes = config.auth?.scopes ?? [];
  if (config.authRequired && identity === null) {
    return unauthorized(config, identities.tokenSent(config.handler), endpointScopes);
  }
  if (identity !== null || config.authRequired) {
    const missing = missingScopes(endpointScopes, identity);
    if (missing.length > 0) return forbidden(config, endpointScopes, missing);
  }
  return null;
}

/**
 * Each called tool's rule (its `authRequired`, its `scopes` on top of the
 * endpoint's), for the parsed POST body; run after `checkEndpoint`.
 */
export async function checkTools(
  request: Request,
  body: unknown,
  config: GateConfig,
): Promise<globalThis.Response | null> {
  const resources = config.resources;
  if ((config.tools.size === 0 && (resources === undefined || resources.size === 0)) || body === undefined)
    return null;
  const identities = identitiesOf(request);
  const endpointScopes = config.auth?.scopes ?? [];
  const guarded = calledTools(body).map((name) => config.tools.get(name));
  if (resources !== undefined) for (const uri of readResources(body)) guarded.push(resources.get(uri));
  for (const access of guarded) {
    if (access === undefined || (!access.authRequired && access.scopes.length === 0)) continue;
    const handler = access.handler ?? config.handler;
    const caller = await identities.of(handler, true);
    const required = [...new Set([...endpointScopes, ...access.scopes])];
    if (caller === null) return unauthorized(config, identities.tokenSent(handler), required);
    const missing = missingScopes(required, caller);
    if (missing.length > 0) return forbidden(config, required, missing);
  }
  return null;
}
