/**
 * A small OAuth 2.1 authorization server for tests: RFC 8414 metadata, a JWKS,
 * and a token endpoint for the client-credentials grant that issues ES256 JWT
 * access tokens (RFC 9068) for the requested `resource` (RFC 8707) with the
 * requested scopes, as far as the client is allowed them. Real HTTP, real
 * signatures (jose), so the app's JWT validation is exercised for real.
 */
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";

export interface IssuedToken {
  clientId: string;
  resource: string | null;
  scope: string;
}

export interface AuthorizationServer {
  issuer: string;
  jwksUri: string;
  /** Every token issued, in order. */
  issued: IssuedToken[];
  /** Signs a token directly (for tests that need a particular one). */
  sign(claims: Record<string, unknown>, options?: { audience?: string; expiresAt?: number }): Promise<string>;
  stop(): Promise<void>;
}

export interface ClientRecord {
  secret: string;
  /** Scopes this client may be granted. */
  scopes: string[];
}

export async function startAuthorizationServer(
  clients: Record<string, ClientRecord>,
): Promise<AuthorizationServer> {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "test-key", alg: "ES256", use: "sig" };
  const issued: IssuedToken[] = [];
  let issuer = "";

  const sign = (claims: Record<string, unknown>, options: { audience?: string; expiresAt?: number } = {}) => {
    const jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: "ES256", kid: "test-key", typ: "at+jwt" })
      .setIssuer(issuer)
      .setIssuedAt()
      .setExpirationTime(options.expiresAt ?? "5m");
    if (options.audience !== undefined) jwt.setAudience(options.audience);
    return jwt.sign(privateKey);
  };

  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === "/.well-known/oauth-authorization-server") {
        return json({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ["code"],
          grant_types_supported: ["client_credentials"],
          token_endpoint_auth_methods_supported: ["client_secret_basic"],
          code_challenge_methods_supported: ["S256"],
        });
      }
      if (url.pathname === "/jwks") return json({ keys: [jwk] });
      if (url.pathname === "/token" && request.method === "POST") {
        const basic = request.headers.get("authorization") ?? "";
        const [id, secret] = Buffer.from(basic.replace(/^Basic /i, ""), "base64")
          .toString()
          .split(":");
        const client = clients[decodeURIComponent(id ?? "")];
        if (client === undefined || client.secret !== decodeURIComponent(secret ?? "")) {
          return json({ error: "invalid_client" }, 401);
        }
        const form = new URLSearchParams(await request.text());
        if (form.get("grant_type") !== "client_credentials")
          return json({ error: "unsupported_grant_type" }, 400);
        const asked = (form.get("scope") ?? "").split(" ").filter(Boolean);
        const refused = asked.filter((scope) => !client.scopes.includes(scope));
        if (refused.length > 0)
          return json({ error: "invalid_scope", error_description: refused.join(" ") }, 400);
        const scope = asked.join(" ");
        const resource = form.get("resource");
        issued.push({ clientId: id as string, resource, scope });
        const token = await sign(
          { sub: id, client_id: id, scope },
          resource === null ? {} : { audience: resource },
        );
        return json({ access_token: token, token_type: "Bearer", expires_in: 300, scope });
      }
      return new Response("not found", { status: 404 });
    },
  });
  issuer = `http://127.0.0.1:${server.port}`;
  return { issuer, jwksUri: `${issuer}/jwks`, issued, sign, stop: () => server.stop(true) };
}

/** A port that was free a moment ago: the resource URL must name the port before the app starts. */
export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port as number;
  probe.stop(true);
  return port;
}
