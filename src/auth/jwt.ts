/**
 * `JwtAuth`: an `AuthenticationHandler` that verifies JSON Web Tokens with `jose`
 * (docs/authentication.md, "JWT"). The key comes from a JWKS URL (cached, refetched on
 * rotation), a shared secret (HS*) or a public key; the algorithms are an explicit
 * allow-list that never holds `none` nor mixes HMAC with public keys (the HS/RS confusion).
 * `jose` is loaded with the first token verified: an app that never verifies one never loads it.
 */
import type * as Jose from "jose";
import type { CryptoKey, JWK, JWTPayload, JWTVerifyGetKey, JWTVerifyOptions } from "jose";
import type { StandardSchemaV1 } from "../args/standard-schema.ts";
import type { Request } from "../http/request.ts";
import { HttpError } from "../response/errors.ts";
import { AuthenticationHandler, type OpenApiSecurityScheme, type TokenGetter } from "./handler.ts";
import { Identity } from "./identity.ts";
import type * as Jwks from "./jwks.ts";
import type { JwksOptions, RemoteKeys } from "./jwks.ts";

/** What a verified token's payload holds (`sub`, `iss`, `aud`, `exp`, `scope`, … and any other claim). */
export type JwtClaims = JWTPayload;

const HMAC = ["HS256", "HS384", "HS512"] as const;
const PUBLIC = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
] as const;

/** The JWS algorithms `JwtAuth` accepts in its allow-list (`none` is not one of them). */
export type JwtAlgorithm = (typeof HMAC)[number] | (typeof PUBLIC)[number];

/** RFC 7518 §3.2: an HMAC key at least as long as the hash's output. */
const HMAC_MIN_BYTES: Record<string, number> = { HS256: 32, HS384: 48, HS512: 64 };

export interface JwtAuthOptions<C extends object = JwtClaims> extends JwksOptions {
  /** The JSON Web Key Set URL of the issuer (`https://issuer/.well-known/jwks.json`): asymmetric algorithms only. */
  jwks?: string | URL;
  /** A shared secret for HS256/384/512, at least as many bytes as the hash's output. */
  secret?: string | Uint8Array;
  /** One public key: PEM (SPKI or an X.509 certificate), a JWK, or a `CryptoKey`. */
  publicKey?: string | JWK | CryptoKey;
  /** The algorithms a token may be signed with; required, never `none`, HMAC only with `secret`. */
  algorithms: JwtAlgorithm[];
  /** The `iss` a token must carry (one of them, when several are given). */
  issuer?: string | string[];
  /** An `aud` the token must carry (one of them, when several are given). */
  audience?: string | string[];
  /** Seconds of clock difference tolerated on `exp`, `nbf` and `iat`. Default 0. */
  clockSkewSec?: number;
  /** Claims every token must carry; `exp` is always required unless `requireExpiry: false`. */
  requiredClaims?: string[];
  /** Accept tokens without `exp` (they never expire). Default false. */
  requireExpiry?: boolean;
  /** The JOSE header `typ` a token must carry (`at+jwt` for RFC 9068 access tokens). */
  typ?: string;
  /** The oldest `iat` accepted, in seconds. */
  maxTokenAgeSec?: number;
  /** A Standard Schema (zod, valibot, …) the payload must pass; its output types `identity.claims`. */
  claims?: StandardSchemaV1<unknown, C>;
  /** Where the token is; default `Authorization: Bearer <token>`. */
  tokenGetter?: TokenGetter;
  /** `realm` of the `WWW-Authenticate: Bearer` challenge. */
  realm?: string;
}

type KeySource = { kind: "secret"; key: Uint8Array } | { kind: "public"; key: string | JWK | CryptoKey };

let jose: typeof Jose | null = null;

async function loadJose(): Promise<typeof Jose> {
  jose ??= await import("jose");
  return jose;
}

/**
 * Verifies `Authorization: Bearer <jwt>` and makes its payload `request.identity.claims`.
 * A bad token (signature, algorithm, issuer, audience, expiry, not-before, claims) is "not
 * authenticated": 401 on `authRequired` routes. JWKS keys that cannot be fetched are the
 * server's problem, not the client's: 503 with `Retry-After`.
 */
export class JwtAuth<C extends object = JwtClaims> extends AuthenticationHandler<C> {
  private readonly verifyOptions: JWTVerifyOptions;
  private readonly source: KeySource | null;
  private readonly remote: RemoteKeys | null;
  private readonly schema: StandardSchemaV1<unknown, C> | null;
  private readonly realm: string | undefined;
  private readonly publicKeys = new Map<string, Promise<CryptoKey | Uint8Array>>();

  constructor(options: JwtAuthOptions<C>) {
    super(options.tokenGetter);
    const algorithms = checkedAlgorithms(options.algorithms);
    const given = [options.jwks, options.secret, options.publicKey].filter((value) => value !== undefined);
    if (given.length !== 1) throw new TypeError("JwtAuth: give exactly one of jwks, secret and publicKey");
    const hmac = algorithms.filter((alg) => alg.startsWith("HS"));
    if (options.secret !== undefined) {
      if (hmac.length !== algorithms.length) {
        throw new TypeError(
          "JwtAuth: a secret only verifies HS256/HS384/HS512; list only those in algorithms",
        );
      }
      const key =
        typeof options.secret === "string" ? new TextEncoder().encode(options.secret) : options.secret;
      for (const alg of hmac) {
        const min = HMAC_MIN_BYTES[alg] as number;
        if (key.byteLength < min)
          throw new TypeError(`JwtAuth: ${alg} needs a secret of at least ${min} bytes`);
      }
      this.source = { kind: "secret", key };
    } else if (hmac.length > 0) {
      // A public key used as an HMAC secret would let anyone sign (the HS/RS confusion).
      throw new TypeError(`JwtAuth: ${hmac.join(", ")} needs a secret, not a public key or a JWKS`);
    } else {
      this.source = options.publicKey === undefined ? null : { kind: "public", key: options.publicKey };
    }
    this.remote =
      options.jwks === undefined
        ? null
        : // The JWKS client loads only for a `jwks` URL (start-up, docs/performance.md).
          new (require("./jwks.ts") as typeof Jwks).RemoteKeys(
            checkedJwksUrl(options.jwks),
            options,
            loadJose,
          );
    const clockSkew = options.clockSkewSec ?? 0;
    if (!Number.isFinite(clockSkew) || clockSkew < 0) {
      throw new TypeError("JwtAuth: clockSkewSec must be a non-negative number");
    }
    const required = new Set(options.requiredClaims ?? []);
    if (options.requireExpiry !== false) required.add("exp");
    this.verifyOptions = {
      algorithms,
      clockTolerance: clockSkew,
      requiredClaims: [...required],
      ...(options.issuer !== undefined ? { issuer: options.issuer } : {}),
      ...(options.audience !== undefined ? { audience: options.audience } : {}),
      ...(options.typ !== undefined ? { typ: options.typ } : {}),
      ...(options.maxTokenAgeSec !== undefined ? { maxTokenAge: options.maxTokenAgeSec } : {}),
    };
    this.schema = options.claims ?? null;
    if (options.realm !== undefined && !/^[\x20\x21\x23-\x5B\x5D-\x7E]*$/.test(options.realm)) {
      throw new TypeError("JwtAuth: realm must be printable ASCII without quotes or backslashes");
    }
    this.realm = options.realm;
  }

  async authenticate(request: Request): Promise<Identity<C> | null> {
    const token = this.tokenGetter.getToken(request);
    if (token === null) return null;
    const lib = await loadJose();
    let payload: JWTPayload;
    try {
      ({ payload } = await lib.jwtVerify(token, this.keyFor(lib), this.verifyOptions));
    } catch (error) {
      // Only the remote key set (loaded with it) throws this.
      if (this.remote !== null && error instanceof (require("./jwks.ts") as typeof Jwks).JwksUnavailable) {
        throw new HttpError(503, "the token's signing keys cannot be fetched", {
          "retry-after": String(error.retryAfterSec),
        });
      }
      return null;
    }
    const claims = this.schema === null ? (payload as C) : await validClaims(this.schema, payload);
    return claims === null ? null : new Identity<C>({ claims });
  }

  override get challenge(): string {
    return this.realm === undefined ? "Bearer" : `Bearer realm="${this.realm}"`;
  }

  override get securityScheme(): OpenApiSecurityScheme {
    return {
      name: "bearerJwt",
      scheme: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "JWT",
        description: "`Authorization: Bearer <JWT>`",
      },
    };
  }

  /** The verification key: the JWKS (by `kid`), the secret, or the public key imported for the token's `alg`. */
  private keyFor(lib: typeof Jose): JWTVerifyGetKey | Uint8Array {
    if (this.remote !== null) return this.remote.getKey;
    const source = this.source as KeySource;
    if (source.kind === "secret") return source.key;
    return async (header) => {
      const alg = header.alg as string;
      let key = this.publicKeys.get(alg);
      if (key === undefined) {
        key = importPublic(lib, source.key, alg);
        this.publicKeys.set(alg, key);
      }
      return key;
    };
  }
}

function checkedAlgorithms(algorithms: unknown): JwtAlgorithm[] {
  if (!Array.isArray(algorithms) || algorithms.length === 0) {
    throw new TypeError("JwtAuth: algorithms must list the algorithms tokens may use (an allow-list)");
  }
  for (const alg of algorithms) {
    if (typeof alg === "string" && alg.toLowerCase() === "none") {
      throw new TypeError("JwtAuth: alg 'none' (unsigned tokens) is never accepted");
    }
    if (!(HMAC as readonly unknown[]).includes(alg) && !(PUBLIC as readonly unknown[]).includes(alg)) {
      throw new TypeError(`JwtAuth: unknown algorithm ${JSON.stringify(alg)}`);
    }
  }
  return [...new Set(algorithms as JwtAlgorithm[])];
}

function checkedJwksUrl(value: string | URL): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`JwtAuth: jwks '${String(value)}' is not an absolute URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TypeError(`JwtAuth: jwks '${url.href}' must be an http(s) URL`);
  }
  return url;
}

/** A PEM (SPKI or certificate), a JWK or a `CryptoKey`, ready for `alg`. A key of the wrong type rejects: 401. */
async function importPublic(
  lib: typeof Jose,
  key: string | JWK | CryptoKey,
  alg: string,
): Promise<CryptoKey | Uint8Array> {
  if (typeof key === "string") {
    return key.includes("BEGIN CERTIFICATE") ? lib.importX509(key, alg) : lib.importSPKI(key, alg);
  }
  if ("type" in key && "algorithm" in key) return key as CryptoKey;
  return lib.importJWK(key as JWK, alg);
}

async function validClaims<C>(schema: StandardSchemaV1<unknown, C>, payload: JWTPayload): Promise<C | null> {
  const result = await schema["~standard"].validate(payload);
  return "issues" in result && result.issues !== undefined ? null : (result as { value: C }).value;
}
