/**
 * `BasicAuth`: HTTP Basic authentication (RFC 7617) as an `AuthenticationHandler`
 * (docs/authentication.md, "Basic"). A header that is not well-formed Basic credentials
 * (bad base64, not UTF-8, no colon, control characters) is "not authenticated" (401), never
 * a 500. Passwords of the `users` table are compared in constant time, and an unknown user
 * costs the same comparison as a known one.
 */
import type { Request } from "../http/request.ts";
import { AuthenticationHandler, type OpenApiSecurityScheme, TokenGetter } from "./handler.ts";
import { Identity } from "./identity.ts";

export interface BasicAuthOptions {
  /** User names and their passwords; checked in constant time. Give this or `verify`. */
  users?: Record<string, string>;
  /**
   * Decides a user name and password (a database look-up, a password hash check); may be async.
   * Compare secrets in constant time yourself (`crypto.timingSafeEqual`, `Bun.password.verify`).
   */
  verify?: (user: string, password: string, request: Request) => boolean | Promise<boolean>;
  /** The protection space named in the challenge; default "webfw". */
  realm?: string;
}

/** The identity of a Basic request: the user name. */
export interface BasicClaims {
  sub: string;
}

/** Reads `Authorization: Basic <base64>` (scheme case-insensitive); the credentials are left encoded. */
export class BasicGetter extends TokenGetter {
  getToken(request: Request): string | null {
    const header = request.headers.get("authorization");
    if (header === null) return null;
    const space = header.indexOf(" ");
    if (space === -1 || header.slice(0, space).toLowerCase() !== "basic") return null;
    const token = header.slice(space + 1).trim();
    return token === "" ? null : token;
  }
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// RFC 7617 §2: neither the user-id nor the password may contain control characters.
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The user name and password of a Basic token, or null when it is not well-formed. */
export function decodeBasic(token: string): { user: string; password: string } | null {
  if (token.length % 4 !== 0 || !BASE64.test(token)) return null;
  let text: string;
  try {
    text = utf8.decode(Buffer.from(token, "base64"));
  } catch {
    return null;
  }
  const colon = text.indexOf(":");
  if (colon === -1 || hasControl(text)) return null;
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

function sha256(text: string): Uint8Array {
  return new Bun.CryptoHasher("sha256").update(text).digest();
}

/** HTTP Basic authentication: `request.identity.claims.sub` is the user name. */
export class BasicAuth extends AuthenticationHandler<BasicClaims> {
  private readonly hashes: Map<string, Uint8Array> | null;
  private readonly verify: BasicAuthOptions["verify"] | null;
  private readonly realm: string;
  private readonly equal: (a: Uint8Array, b: Uint8Array) => boolean;
  /** Compared with when the user is unknown, so that it takes as long as a wrong password. */
  private readonly dummy = sha256("webfw basic auth: no such user");

  constructor(options: BasicAuthOptions) {
    super(new BasicGetter());
    if ((options.users === undefined) === (options.verify === undefined)) {
      throw new TypeError("BasicAuth: give either users or verify");
    }
    if (options.verify !== undefined && typeof options.verify !== "function") {
      throw new TypeError("BasicAuth: verify must be a function");
    }
    this.verify = options.verify ?? null;
    this.hashes = null;
    if (options.users !== undefined) {
      const hashes = new Map<string, Uint8Array>();
      for (const [user, password] of Object.entries(options.users)) {
        if (user.includes(":") || hasControl(user)) {
          throw new TypeError(
            `BasicAuth: user name ${JSON.stringify(user)} has a colon or a control character`,
          );
        }
        if (typeof password !== "string")
          throw new TypeError(`BasicAuth: the password of '${user}' must be a string`);
        hashes.set(user, sha256(password));
      }
      this.hashes = hashes;
    }
    const realm = options.realm ?? "webfw";
    if (typeof realm !== "string" || hasControl(realm)) {
      throw new TypeError("BasicAuth: realm must be a string without control characters");
    }
    this.realm = realm;
    // Loaded when Basic authentication is used (node:crypto costs idle memory: docs/performance.md).
    this.equal = (require("node:crypto") as typeof import("node:crypto")).timingSafeEqual;
  }

  async authenticate(request: Request): Promise<Identity<BasicClaims> | null> {
    const token = this.tokenGetter.getToken(request);
    const credentials = token === null ? null : decodeBasic(token);
    if (credentials === null) return null;
    const { user, password } = credentials;
    let ok: boolean;
    if (this.hashes !== null) {
      // Hashing makes both sides 32 bytes, so the comparison's time says nothing about the length.
      const expected = this.hashes.get(user);
      ok = this.equal(sha256(password), expected ?? this.dummy) && expected !== undefined;
    } else {
      ok = (await (this.verify as NonNullable<BasicAuthOptions["verify"]>)(user, password, request)) === true;
    }
    return ok ? new Identity<BasicClaims>({ claims: { sub: user } }) : null;
  }

  /** RFC 7617 §2 and §2.1: the realm, and that credentials are UTF-8. */
  override get challenge(): string {
    return `Basic realm="${this.realm.replace(/[\\"]/g, "\\$&")}", charset="UTF-8"`;
  }

  override get securityScheme(): OpenApiSecurityScheme {
    return {
      name: "basicAuth",
      scheme: { type: "http", scheme: "basic", description: "HTTP Basic (RFC 7617)" },
    };
  }
}
