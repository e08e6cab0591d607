import type * as NodeCrypto from "node:crypto";

/** A signing secret: text (its UTF-8 bytes are the key) or raw bytes. */
export type SecretKey = string | Uint8Array;

export const MIN_SECRET_BYTES = 32;
/** base64url of an HMAC-SHA256 digest (32 bytes), unpadded. */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;
// Twice the largest cookie a browser keeps: anything longer was not made by us, so it is not even hashed.
const MAX_VALUE_CHARS = 8192;
// Domain separation: a signature made here is never valid for another use of the same key.
const CONTEXT = "webfw.session.v1";

/** Session data as it travels in the cookie. */
export type SessionData = Record<string, unknown>;

/**
 * Checks and converts the configured secret(s). The first key signs, every
 * key verifies, so a new key can be put first while cookies signed with the
 * old one stay valid until they expire.
 */
export function normaliseKeys(secretKey: SecretKey | readonly SecretKey[]): Uint8Array[] {
  const list = Array.isArray(secretKey) ? secretKey : [secretKey];
  if (list.length === 0) throw new TypeError("sessions: secretKey must not be an empty list");
  return list.map((key, index) => {
    const bytes = typeof key === "string" ? new TextEncoder().encode(key) : key;
    if (!(bytes instanceof Uint8Array))
      throw new TypeError("sessions: secretKey must be a string, bytes or a list of them");
    if (bytes.length < MIN_SECRET_BYTES) {
      const which = list.length > 1 ? ` #${index + 1}` : "";
      throw new TypeError(
        `sessions: secretKey${which} is ${bytes.length} bytes; it must be at least ${MIN_SECRET_BYTES} random bytes ` +
          "(for example `openssl rand -base64 32`)",
      );
    }
    return bytes;
  });
}

/**
 * The cookie format: `base64url(JSON {d, iat, exp?})` + `.` + base64url(HMAC-SHA256).
 * The MAC covers the cookie name too, so a value cannot be moved to another
 * cookie signed with the same key. Times are Unix seconds.
 */
export class SessionCodec {
  constructor(
    private readonly keys: readonly Uint8Array[],
    private readonly cookieName: string,
  ) {}

  /** `maxAge` null: no expiry in the payload (a browser-session cookie). */
  encode(data: SessionData, nowMs: number, maxAge: number | null): string {
    const iat = Math.floor(nowMs / 1000);
    const body: { d: SessionData; iat: number; exp?: number } = { d: data, iat };
    if (maxAge !== null) body.exp = iat + maxAge;
    const payload = Buffer.from(JSON.stringify(body), "utf8").toString("base64url");
    return `${payload}.${this.sign(this.keys[0] as Uint8Array, payload)}`;
  }

  /** The data of a genuine, unexpired cookie; `null` for anything else (never throws). */
  decode(value: string, nowMs: number): SessionData | null {
    if (value.length > MAX_VALUE_CHARS) return null;
    const dot = value.lastIndexOf(".");
    if (dot <= 0) return null;
    const payload = value.slice(0, dot);
    const signature = value.slice(dot + 1);
    if (!SIGNATURE.test(signature)) return null;
    const given = Buffer.from(signature, "latin1");
    // timingSafeEqual compares whole digests; stopping at the matching key only tells which key signed.
    if (!this.keys.some((key) => timingSafeEqual()(Buffer.from(this.sign(key, payload), "latin1"), given)))
      return null;
    let body: unknown;
    try {
      body = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      return null;
    }
    if (typeof body !== "object" || body === null) return null;
    const { d, iat, exp } = body as { d?: unknown; iat?: unknown; exp?: unknown };
    if (typeof d !== "object" || d === null || Array.isArray(d) || typeof iat !== "number") return null;
    if (exp !== undefined && (typeof exp !== "number" || exp <= Math.floor(nowMs / 1000))) return null;
    return d as SessionData;
  }

  private sign(key: Uint8Array, payload: string): string {
    return new Bun.CryptoHasher("sha256", key)
      .update(`${CONTEXT}\n${this.cookieName}\n${payload}`)
      .digest("base64url");
  }
}

let nodeCrypto: typeof NodeCrypto | null = null;
/**
 * node:crypto costs about 5 MB of resident memory once loaded: only an app that verifies a
 * session cookie loads it (docs/performance.md, "Idle memory").
 */
function timingSafeEqual(): typeof NodeCrypto.timingSafeEqual {
  nodeCrypto ??= require("node:crypto") as typeof NodeCrypto;
  return nodeCrypto.timingSafeEqual;
}
