/**
 * A real JWKS server for the JwtAuth tests: Bun.serve on 127.0.0.1 port 0, serving the public
 * halves of keys generated with `jose`, counting its fetches, and able to rotate keys, answer
 * 500 or stop (the "JWKS server down" cases).
 */
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

export async function signingKey(kid: string, alg = "RS256"): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
  return { kid, alg, privateKey, publicKey, jwk };
}

export interface JwksServer {
  url: string;
  /** Keys served now (replace to rotate). */
  keys: SigningKey[];
  fetches: number;
  /** Answer 500 instead of the key set. */
  failing: boolean;
  stop(): Promise<void>;
}

export function startJwksServer(keys: SigningKey[]): JwksServer {
  const state: JwksServer = {
    url: "",
    keys,
    fetches: 0,
    failing: false,
    stop: async () => {
      await server.stop(true);
    },
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      if (new URL(request.url).pathname !== "/jwks.json") return new Response("not found", { status: 404 });
      state.fetches++;
      if (state.failing) return new Response("down", { status: 500 });
      return Response.json({ keys: state.keys.map((key) => key.jwk) });
    },
  });
  state.url = `http://127.0.0.1:${server.port}/jwks.json`;
  return state;
}

export const ISSUER = "https://issuer.test";
export const AUDIENCE = "https://api.test";

export interface TokenOptions {
  issuer?: string;
  audience?: string;
  /** Seconds from now; `null`: no `exp` at all. */
  expiresIn?: number | null;
  /** Seconds from now. */
  notBefore?: number;
  kid?: string;
  claims?: Record<string, unknown>;
}

export async function sign(key: SigningKey, options: TokenOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ sub: "ada", scope: "notes:read", ...options.claims })
    .setProtectedHeader({ alg: key.alg, kid: options.kid ?? key.kid })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt();
  if (options.expiresIn !== null) jwt.setExpirationTime(now + (options.expiresIn ?? 300));
  if (options.notBefore !== undefined) jwt.setNotBefore(now + options.notBefore);
  return jwt.sign(key.privateKey);
}

/** base64url of a JSON value or bytes. */
export function b64url(value: unknown): string {
  const bytes = value instanceof Uint8Array ? value : new TextEncoder().encode(JSON.stringify(value));
  return Buffer.from(bytes).toString("base64url");
}
