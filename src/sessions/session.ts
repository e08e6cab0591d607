import type { SessionData } from "./codec.ts";

/** What a session needs from its configuration: reading the cookie and checking that new data still fits. */
export interface SessionBackend {
  /** The data of the client's cookie, or `null` when it is absent, forged, expired or malformed. */
  decode(raw: string): SessionData | null;
  /** Throws when `data` cannot be stored (not JSON, or the cookie would be too large). */
  check(data: SessionData): void;
}

/** A session's state as it crosses to a handler Worker and back (structured-clone friendly). */
export interface SessionTransfer {
  data: SessionData;
  isNew: boolean;
  modified: boolean;
  accessed: boolean;
}

/**
 * `request.session`: a small key-value store kept in a signed cookie.
 * The cookie is read on first use, and sent back only when the data changed
 * (`modified`), or on every request with `rolling`.
 */
export class Session {
  /**
   * True once the data changed in this request. Set it yourself after
   * changing a stored object in place (`session.get("cart").push(x)`), which
   * the session cannot see.
   */
  modified = false;
  /** @internal */ readonly backend: SessionBackend | null;
  /** @internal The handler read or wrote the session: the response depends on the cookie. */
  accessed = false;
  /** @internal The cookie was already written to a response (by `commitSession`). */
  committed = false;
  private entries: Map<string, unknown> | null = null;
  private readonly readCookie: () => string | undefined;
  private cookieSent = false;
  private valid = false;

  /** A session with no backend is a plain in-memory one (useful in unit tests). */
  constructor(backend: SessionBackend | null = null, readCookie: () => string | undefined = () => undefined) {
    this.backend = backend;
    this.readCookie = readCookie;
  }

  /** The value of `key`, or `fallback` (default `undefined`) when absent. */
  get<T = unknown>(key: string): T | undefined;
  get<T>(key: string, fallback: T): T;
  get<T>(key: string, fallback?: T): T | undefined {
    const entries = this.use();
    return entries.has(key) ? (entries.get(key) as T) : fallback;
  }

  /**
   * Stores a JSON-serialisable value (it comes back as `JSON.parse` gives it).
   * Throws at once when the value is not JSON or the cookie would be too big,
   * so the stack points at the offending call. `undefined` deletes the key.
   */
  set(key: string, value: unknown): this {
    if (typeof key !== "string") throw new TypeError("session keys must be strings");
    if (value === undefined) {
      this.delete(key);
      return this;
    }
    if (typeof value === "function" || typeof value === "symbol") {
      throw new TypeError(`session value of '${key}' must be JSON-serialisable, not a ${typeof value}`);
    }
    const entries = this.use();
    if (this.backend) {
      const next = Object.fromEntries(entries);
      Object.defineProperty(next, key, { value, enumerable: true, writable: true, configurable: true });
      this.backend.check(next);
    }
    entries.set(key, value);
    this.modified = true;
    return this;
  }

  /** Removes `key`; true when it was there. */
  delete(key: string): boolean {
    const removed = this.use().delete(key);
    if (removed) this.modified = true;
    return removed;
  }

  /** Removes everything; the response then deletes the cookie (log out). */
  clear(): void {
    const entries = this.use();
    if (entries.size > 0 || this.cookieSent) this.modified = true;
    entries.clear();
  }

  has(key: string): boolean {
    return this.use().has(key);
  }

  keys(): string[] {
    return [...this.use().keys()];
  }

  get size(): number {
    return this.use().size;
  }

  /** True when the client sent no valid session (none, forged, expired or malformed). */
  get isNew(): boolean {
    this.use();
    return !this.valid;
  }

  /** A copy of the data as a plain object. */
  toJSON(): SessionData {
    return Object.fromEntries(this.use());
  }

  /** @internal The data without marking the session as read by the handler. */
  load(): Map<string, unknown> {
    if (this.entries === null) {
      const raw = this.readCookie();
      this.cookieSent = raw !== undefined;
      const data = raw !== undefined && this.backend ? this.backend.decode(raw) : null;
      this.valid = data !== null;
      this.entries = new Map(data ? Object.entries(data) : []);
    }
    return this.entries;
  }

  /** @internal Worker pool, main thread: the state to send with the call (not counted as a use). */
  snapshot(): SessionTransfer {
    const data = Object.fromEntries(this.load());
    return { data, isNew: !this.valid, modified: this.modified, accessed: this.accessed };
  }

  /** @internal Worker pool, Worker side: a session seeded from `snapshot()`; its own `snapshot()` is the reply. */
  static detached(state: SessionTransfer): Session {
    const session = new Session();
    session.entries = new Map(Object.entries(state.data));
    session.valid = !state.isNew;
    return session;
  }

  /** @internal Worker pool, main thread: takes over what the Worker-side session did. */
  absorb(state: SessionTransfer): void {
    if (state.accessed) this.accessed = true;
    if (!state.modified) return;
    this.backend?.check(state.data);
    this.load();
    this.entries = new Map(Object.entries(state.data));
    this.modified = true;
  }

  /** @internal The client sent a cookie of this name (valid or not). */
  get hadCookie(): boolean {
    this.load();
    return this.cookieSent;
  }

  private use(): Map<string, unknown> {
    this.accessed = true;
    return this.load();
  }
}
