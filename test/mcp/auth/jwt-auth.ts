/**
 * JWT access-token validation with `jose`, as docs/mcp.md ("Authorization")
 * shows it: signature against the issuer's JWKS, issuer, expiry, and the
 * audience checked against the MCP `resource`, so a token minted for another
 * server is refused (RFC 8707 / MCP "token audience binding").
 */
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";
import { AuthenticationHandler, Identity, type Request } from "../../../src/index.ts";

export class JwtAuth extends AuthenticationHandler<JWTPayload> {
  private readonly keys: ReturnType<typeof createRemoteJWKSet>;

  constructor(
    jwksUri: string,
    private readonly issuer: string,
    private readonly audience: string,
  ) {
    super();
    this.keys = createRemoteJWKSet(new URL(jwksUri));
  }

  async authenticate(request: Request): Promise<Identity<JWTPayload> | null> {
    const token = this.tokenGetter.getToken(request);
    if (token === null) return null;
    try {
      const { payload } = await jwtVerify(token, this.keys, { issuer: this.issuer, audience: this.audience });
      return new Identity({ claims: payload });
    } catch {
      return null; // bad signature, wrong audience, expired: not authenticated (401 invalid_token)
    }
  }
}
