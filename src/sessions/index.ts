import { type CookieOptions, MAX_COOKIE_BYTES, serializeCookie } from "../http/cookies.ts";
import type { Request } from "../http/request.ts";
import type { Response } from "../response/response.ts";
import { appendVary } from "../response/vary.ts";
import { installPair, type MiddlewarePair, type MiddlewareTarget } from "../router/middleware.ts";
import { normaliseKeys, type SecretKey, SessionCodec, type SessionData } from "./codec.ts";
import { Session, type SessionBackend } from "./session.ts";

export type { SecretKey, SessionData } from "./codec.ts";
export { Session } from "./session.ts";

export interface SessionOptions {
  /** At least 32 bytes. A list rotates keys: the first signs, every one verifies. */
  secretKey: SecretKey | readonly SecretKey[];
  /** Default `session`. */
  cookieName?: string;
  /** Lifetime in seconds, enforced by the signature as well as the browser; default 14 days. `null`: until the browser closes. */
  maxAge?: number | null;
  /** Default `/`. */
  path?: string;
  domain?: string;
  /**
   * Default false; set it in production (HTTPS). `"auto"`: `Secure` when the request came over
   * HTTPS, its own or, behind `trustProxy`, the one the proxy reports (docs/client-address.md).
   */
  secure?: boolean | "auto";
  /** Default true: scripts cannot read the cookie. */
  httpOnly?: boolean;
  /** Default `Lax`. */
  sameSite?: CookieOptions["sameSite"];
  partitioned?: boolean;
  /** Re-send the cookie (a fresh expiry) on every response while the session holds data. Default false. */
  rolling?: boolean;
}

/** The session cookie would exceed what browsers keep. */
export class SessionTooLargeError extends Error {
  override readonly name = "SessionTooLargeError";
}

const DEFAULT_MAX_AGE = 14 * 24 * 60 * 60;
const configured = new WeakSet<object>();

/**
 * What `app.sessions(options)` and `router.sessions(options)` do (src/router/router-base.ts), the
 * one way to install sessions (docs/cookies-and-sessions.md): the signed-cookie store's pair on
 * `target`, once per router.
 */
export function installSessions(target: MiddlewareTarget, options: SessionOptions): void {
  if (configured.has(target)) throw new Error("sessions are already configured for this router");
  const pair = sessionPair(options);
  configured.add(target);
  installPair(target, pair);
}

/**
 * Sessions as a before/after pair: the before half gives every request a (lazily read)
 * `request.session`, the after half writes the cookie back when the session changed.
 * Options are checked here, so a bad key or cookie attribute fails at configuration.
 */
function sessionPair(options: SessionOptions): MiddlewarePair {
  const store = new SessionStore(options);
  return {
    before: (request) => {
      request.session = new Session(store, () => request.cookies[store.cookieName]);
    },
    after: (response, request) => {
      const session = request.session;
      if (session !== null && session.backend === store) store.write(session, response, request);
    },
  };
}

/**
 * Writes the session cookie onto `response` now. Needed only where the
 * after-middlewares do not run: a before-middleware that answers itself.
 */
export function commitSession(request: Request, response: Response): void {
  const session = request.session;
  if (session === null || !(session.backend instanceof SessionStore)) {
    throw new Error(
      "commitSession: sessions are not configured (call app.sessions() or router.sessions() first)",
    );
  }
  session.backend.write(session, response, request);
}

class SessionStore implements SessionBackend {
  readonly cookieName: string;
  private readonly codec: SessionCodec;
  private readonly maxAge: number | null;
  private readonly rolling: boolean;
  private readonly attributes: CookieOptions;
  /** `secure: "auto"`: the attributes over HTTPS (`Secure`), chosen per request by its scheme. */
  private readonly secureAttributes: CookieOptions | null;

  constructor(options: SessionOptions) {
    if (typeof options !== "object" || options === null)
      throw new TypeError("sessions() needs an options object");
    const keys = normaliseKeys(options.secretKey);
    this.cookieName = options.cookieName ?? "session";
    const maxAge = options.maxAge === undefined ? DEFAULT_MAX_AGE : options.maxAge;
    if (maxAge !== null && (!Number.isSafeInteger(maxAge) || maxAge <= 0)) {
      throw new TypeError("sessions: maxAge must be a positive whole number of seconds, or null");
    }
    this.maxAge = maxAge;
    this.rolling = options.rolling === true;
    this.attributes = {
      path: options.path ?? "/",
      domain: options.domain,
      secure: options.secure === true,
      httpOnly: options.httpOnly ?? true,
      sameSite: options.sameSite ?? "Lax",
      partitioned: options.partitioned === true,
    };
    const auto = options.secure === "auto";
    if (options.secure !== undefined && typeof options.secure !== "boolean" && !auto)
      throw new TypeError('sessions: secure must be true, false or "auto"');
    if (auto && (this.attributes.sameSite === "None" || this.attributes.partitioned)) {
      // Over plain HTTP such a cookie would have no Secure, which browsers refuse.
      throw new TypeError(
        'sessions: secure "auto" cannot go with sameSite None or partitioned; use secure: true',
      );
    }
    this.secureAttributes = auto ? { ...this.attributes, secure: true } : null;
    // Bad names and attributes fail here, at configuration, rather than on the first response.
    serializeCookie(this.cookieName, "x", this.attributes);
    this.codec = new SessionCodec(keys, this.cookieName);
  }

  decode(raw: string): SessionData | null {
    return this.codec.decode(raw, Date.now());
  }

  check(data: SessionData): void {
    let value: string;
    try {
      value = this.codec.encode(data, Date.now(), this.maxAge);
    } catch (error) {
      throw new TypeError(`session data must be JSON-serialisable: ${(error as Error).message}`);
    }
    const size = this.cookieName.length + 1 + value.length;
    if (size > MAX_COOKIE_BYTES) {
      throw new SessionTooLargeError(
        `session cookie '${this.cookieName}' would be ${size} bytes; browsers drop cookies over ${MAX_COOKIE_BYTES} ` +
          "bytes. Keep large data server-side and store only its id in the session.",
      );
    }
  }

  /** Sets or deletes the cookie as the session requires; at most once per request unless it changes again. */
  write(session: Session, response: Response, request: Request): void {
    if (session.accessed) appendVary(response.headers, "Cookie");
    if (session.committed && !session.modified) return;
    const attributes =
      this.secureAttributes !== null && request.url.scheme === "https"
        ? this.secureAttributes
        : this.attributes;
    const entries = session.load();
    if (session.modified && entries.size === 0) {
      if (session.hadCookie)
        response.setCookie(this.cookieName, "", { ...attributes, maxAge: 0, expires: new Date(0) });
    } else if (session.modified || (this.rolling && entries.size > 0)) {
      const value = this.codec.encode(Object.fromEntries(entries), Date.now(), this.maxAge);
      response.setCookie(
        this.cookieName,
        value,
        this.maxAge === null ? attributes : { ...attributes, maxAge: this.maxAge },
      );
    }
    session.modified = false;
    session.committed = true;
  }
}
