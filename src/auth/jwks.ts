/**
 * The keys of a remote JSON Web Key Set for `JwtAuth` (docs/authentication.md, "JWKS"): jose's
 * `createRemoteJWKSet` caches the set, refetches it when it is older than the cache age, and
 * on a `kid` it does not know (key rotation) at most once per cooldown. Around it, this module
 * decides what a JWKS server that cannot be reached means: the last good keys keep verifying
 * the tokens they can (the issuer's keys rarely change during an outage); a token they cannot
 * decide (no keys fetched yet, or a `kid` that may be in the set we cannot fetch) is the
 * server's failure, 503, never a 401 that would send a valid client to log in again. The
 * server is not asked again before the cooldown has passed.
 */
import type * as Jose from "jose";
import type { CryptoKey, FlattenedJWSInput, JSONWebKeySet, JWSHeaderParameters, JWTVerifyGetKey } from "jose";

export interface JwksOptions {
  /** Seconds a fetched key set is used before it is fetched again. Default 600. */
  jwksCacheMaxAgeSec?: number;
  /**
   * Seconds between two fetches asked for by an unknown `kid`, and after a failed fetch before
   * the server is tried again. Default 30 (jose's): a flood of made-up `kid`s costs one fetch.
   */
  jwksCooldownSec?: number;
  /** Milliseconds one JWKS fetch may take. Default 5000. */
  jwksTimeoutMs?: number;
}

/** The JWKS could not be fetched and the token cannot be decided without it. */
export class JwksUnavailable extends Error {
  constructor(
    message: string,
    readonly retryAfterSec: number,
    options?: { cause: unknown },
  ) {
    super(message, options);
    this.name = "JwksUnavailable";
  }
}

type KeyResolver = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;
type RemoteSet = KeyResolver & { jwks(): JSONWebKeySet | undefined };

function seconds(value: number | undefined, fallback: number, what: string): number {
  const result = value ?? fallback;
  if (!Number.isFinite(result) || result < 0)
    throw new TypeError(`JwtAuth: ${what} must be a non-negative number`);
  return result;
}

export class RemoteKeys {
  private readonly cacheMaxAgeMs: number;
  private readonly cooldownMs: number;
  private readonly timeoutMs: number;
  private remote: RemoteSet | null = null;
  private failedAt = Number.NEGATIVE_INFINITY;
  private stale: { jwks: JSONWebKeySet; resolve: KeyResolver } | null = null;

  constructor(
    private readonly url: URL,
    options: JwksOptions,
    private readonly load: () => Promise<typeof Jose>,
  ) {
    this.cacheMaxAgeMs = seconds(options.jwksCacheMaxAgeSec, 600, "jwksCacheMaxAgeSec") * 1000;
    this.cooldownMs = seconds(options.jwksCooldownSec, 30, "jwksCooldownSec") * 1000;
    const timeout = options.jwksTimeoutMs ?? 5000;
    if (!Number.isSafeInteger(timeout) || timeout <= 0) {
      throw new TypeError("JwtAuth: jwksTimeoutMs must be a positive integer");
    }
    this.timeoutMs = timeout;
  }

  /** jose's key resolver for `jwtVerify`. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const lib = await this.load();
    const remote = this.remoteSet(lib);
    // The server failed a moment ago: answer from the last good keys without asking it again.
    if (performance.now() - this.failedAt < this.cooldownMs)
      return this.fromLastGood(lib, remote, header, token);
    try {
      return await remote(header, token);
    } catch (error) {
      if (!(error instanceof JwksUnavailable)) throw error;
      this.failedAt = performance.now();
      return this.fromLastGood(lib, remote, header, token, error);
    }
  };

  private remoteSet(lib: typeof Jose): RemoteSet {
    this.remote ??= lib.createRemoteJWKSet(this.url, {
      cacheMaxAge: this.cacheMaxAgeMs,
      cooldownDuration: this.cooldownMs,
      timeoutDuration: this.timeoutMs,
      [lib.customFetch]: (url: string, init: RequestInit) => this.fetchKeys(url, init),
    }) as unknown as RemoteSet;
    return this.remote;
  }

  private async fromLastGood(
    lib: typeof Jose,
    remote: RemoteSet,
    header: JWSHeaderParameters,
    token: FlattenedJWSInput,
    cause?: JwksUnavailable,
  ): Promise<CryptoKey> {
    const retryAfter = Math.max(1, Math.ceil((this.failedAt + this.cooldownMs - performance.now()) / 1000));
    const jwks = remote.jwks();
    if (jwks === undefined) {
      throw new JwksUnavailable(
        cause?.message ?? `the JWKS at ${this.url.href} cannot be fetched`,
        retryAfter,
        {
          cause,
        },
      );
    }
    if (this.stale?.jwks !== jwks) this.stale = { jwks, resolve: lib.createLocalJWKSet(jwks) };
    try {
      return await this.stale.resolve(header, token);
    } catch (error) {
      // A `kid` we do not know may be in the set we cannot fetch: undecidable, not invalid.
      if (error instanceof lib.errors.JWKSNoMatchingKey) {
        throw new JwksUnavailable(
          `no key for this token, and the JWKS at ${this.url.href} cannot be fetched`,
          retryAfter,
          {
            cause: error,
          },
        );
      }
      throw error;
    }
  }

  /** jose's fetch: every way of not getting a key set (refused, timed out, not 200, not a JWKS) is one error. */
  private async fetchKeys(url: string, init: RequestInit): Promise<globalThis.Response> {
    const retryAfter = Math.max(1, Math.ceil(this.cooldownMs / 1000));
    let text: string;
    try {
      const response = await fetch(url, { ...init, redirect: "error" });
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new JwksUnavailable(`the JWKS at ${url} answered ${response.status}`, retryAfter);
      }
      text = await response.text();
    } catch (error) {
      if (error instanceof JwksUnavailable) throw error;
      throw new JwksUnavailable(`the JWKS at ${url} cannot be reached`, retryAfter, { cause: error });
    }
    let keys: unknown;
    try {
      keys = (JSON.parse(text) as { keys?: unknown }).keys;
    } catch (error) {
      throw new JwksUnavailable(`the JWKS at ${url} is not JSON`, retryAfter, { cause: error });
    }
    if (!Array.isArray(keys)) throw new JwksUnavailable(`the JWKS at ${url} has no "keys" array`, retryAfter);
    return new globalThis.Response(text, { status: 200, headers: { "content-type": "application/json" } });
  }
}
