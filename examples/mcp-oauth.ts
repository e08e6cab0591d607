/**
 * An MCP endpoint behind OAuth, as the MCP authorization spec describes it:
 * clients discover the authorization server from the RFC 9728 metadata this
 * app serves, fetch a token for this resource, and present it. The app checks
 * JWT access tokens with webfw's `JwtAuth` (the issuer's JWKS, signature, issuer,
 * expiry, and the audience against the resource). docs/mcp-authorization.md
 * explains every piece.
 *
 *   OAUTH_ISSUER=https://auth.example.com MCP_RESOURCE=http://127.0.0.1:8080/mcp bun examples/mcp-oauth.ts --port 8080
 *   curl -i -X POST localhost:8080/mcp            # 401, WWW-Authenticate: Bearer resource_metadata="…"
 *   curl localhost:8080/.well-known/oauth-protected-resource/mcp
 */
import { JwtAuth, t, Webfw } from "../src/index.ts";

const issuer = process.env.OAUTH_ISSUER ?? "http://127.0.0.1:9000";
const resource = process.env.MCP_RESOURCE ?? "http://127.0.0.1:8080/mcp";
const jwksUri = process.env.OAUTH_JWKS_URI ?? `${issuer}/jwks`;

const app = new Webfw(import.meta.path);
// RFC 9068 access tokens: the issuer's keys (cached, refetched on rotation), and the audience bound to
// this resource, so that a token minted for another server does not open this one.
app.configureAuthentication(
  new JwtAuth({ jwks: jwksUri, issuer, audience: resource, algorithms: ["ES256", "RS256"] }),
);
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
