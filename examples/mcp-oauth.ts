/**
 * An MCP endpoint behind OAuth, as the MCP authorization spec describes it:
 * clients discover the authorization server from the RFC 9728 metadata this
 * app serves, fetch a token for this resource, and present it. The app checks
 * JWT access tokens with `jose` (signature, issuer, expiry, and the audience
 * against the resource). docs/mcp-authorization.md explains every piece.
 *
 *   OAUTH_ISSUER=https://auth.example.com MCP_RESOURCE=http://127.0.0.1:8080/mcp bun examples/mcp-oauth.ts --port 8080
 *   curl -i -X POST localhost:8080/mcp            # 401, WWW-Authenticate: Bearer resource_metadata="…"
 *   curl localhost:8080/.well-known/oauth-protected-resource/mcp
 */
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";
import { AuthenticationHandler, Identity, type Request, t, Webfw } from "../src/index.ts";

/** JWT access tokens (RFC 9068) checked against the issuer's published keys. */
export class JwtAuth extends AuthenticationHandler<JWTPayload> {
  private readonly keys: ReturnType<typeof createRemoteJWKSet>;

  constructor(
    jwksUri: string,
    private readonly issuer: string,
    private readonly audience: string,
  ) {
    super();
    // Fetched on first use, cached, and fetched again when a token names a key id it does not know.
    this.keys = createRemoteJWKSet(new URL(jwksUri));
  }

  async authenticate(request: Request): Promise<Identity<JWTPayload> | null> {
    const token = this.tokenGetter.getToken(request);
    if (token === null) return null;
    try {
      const { payload } = await jwtVerify(token, this.keys, { issuer: this.issuer, audience: this.audience });
      return new Identity({ claims: payload });
    } catch {
      return null; // bad signature, other audience, expired: 401 with error="invalid_token"
    }
  }
}

const issuer = process.env.OAUTH_ISSUER ?? "http://127.0.0.1:9000";
const resource = process.env.MCP_RESOURCE ?? "http://127.0.0.1:8080/mcp";
const jwksUri = process.env.OAUTH_JWKS_URI ?? `${issuer}/jwks`;

const app = new Webfw(import.meta.path);
app.configureAuthentication(new JwtAuth(jwksUri, issuer, resource));
app.mcp.configure({
  serverName: "notes",
  auth: { resource, authorizationServers: [issuer], scopes: ["mcp"], resourceName: "Notes" },
});

const notes: string[] = [];

app.get("/notes", () => ({ notes }), { summary: "All notes", mcp: true });
app.post(
  "/notes",
  ({ parsedBody, identity }) => {
    notes.push(`${parsedBody.text} (by ${String(identity?.claims.sub)})`);
    return [{ count: notes.length }, 201];
  },
  // Writing needs one more scope: a token without it gets 403 insufficient_scope, and a client steps up.
  {
    body: t.object({ text: t.str().minLength(1) }),
    authRequired: true,
    mcp: { name: "add_note", scopes: ["notes:write"] },
  },
);

if (import.meta.main) {
  const server = await app.start();
  console.log(`listening on ${server.url} (resource ${resource}, issuer ${issuer})`);
}

export default app;
