/**
 * The MCP sessions of this process: one SDK server and one Streamable HTTP
 * transport per session, found by `Mcp-Session-Id`. A session ends on
 * `DELETE`, when the app stops, or when it has been idle (no request, no open
 * stream) for `idleTimeoutMs`, or for the much shorter `unusedTimeoutMs` while
 * it has never been used (nothing but `initialize` and notifications): an
 * abandoned client does not hold memory for ever, and a flood of `initialize`
 * calls holds it only briefly.
 *
 * Three bounds keep one client from locking the others out (docs/mcp.md,
 * "Sessions"): at most `maxSessionsPerClient` per client (identity, else
 * address; its own oldest unused session makes room for a new one), and
 * `maxSessions` in all, where the oldest unused session of anyone makes room
 * before an `initialize` is refused. Sessions that are in use are never
 * evicted. Loaded only with the engine.
 */

import { type Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { SessionEventStore } from "./event-store.ts";
import type { McpCatalog } from "./registry.ts";
import { createSessionServer, type ServerSettings, type SessionState } from "./server-factory.ts";

export interface Session extends SessionState {
  id: string;
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** Responses still streaming (GET notification streams, SSE answers): a session with one is not idle. */
  openStreams: number;
  /** The principal of the identity that opened it (`""`: anonymous); src/mcp/session-owner.ts. */
  owner: string;
  /** The client it is counted against. */
  client: string;
  /** Whether a request (not only notifications) or a GET stream came after `initialize`. */
  used: boolean;
}

export interface SessionOptions {
  idleTimeoutMs: number;
  /** Idle lifetime of a session that was never used after `initialize` (0: `idleTimeoutMs` applies). */
  unusedTimeoutMs: number;
  maxSessions: number;
  /** Sessions one client (identity, else address) may hold in this process. */
  maxSessionsPerClient: number;
  /** Events kept per session for `Last-Event-ID` resumption. */
  eventLogSize: number;
  /** Suggested reconnection delay sent in SSE `retry:` fields. */
  retryIntervalMs: number | undefined;
  /** Makes the id of a new session (carries which process owns it, with `--processes`). */
  newId: () => string;
}

/** A place for one new session, held while its `initialize` is answered; `release` gives it back. */
export interface Admission {
  release(): void;
}

/** Why an `initialize` gets no session: this client holds its share, or the process holds its cap. */
export type Refusal = "client" | "process";

interface ClientEntry {
  /** Its sessions, oldest first. */
  sessions: Set<Session>;
  /** Admissions whose `initialize` is being answered. */
  pending: number;
}

export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  /** Sessions never used since `initialize`, oldest first: the first to make room. */
  private readonly unused = new Map<string, Session>();
  private readonly clients = new Map<string, ClientEntry>();
  /** Admissions in flight, all clients. */
  private pending = 0;
  private sweeper: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly registry: McpCatalog,
    private readonly settings: ServerSettings,
    private readonly options: SessionOptions,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  /** The session, if this process holds it (its idle clock is not touched: see `touch`). */
  find(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** A request of the session's owner arrived: it is not idle, and `used` when it asks for something. */
  touch(session: Session, used: boolean): void {
    session.lastSeen = Date.now();
    if (used && !session.used) {
      session.used = true;
      this.unused.delete(session.id);
    }
  }

  all(): IterableIterator<Session> {
    return this.sessions.values();
  }

  /**
   * Room for one more session of `client`, made by evicting an unused session when a bound is
   * reached (the client's own oldest first, then anyone's oldest); the refusal when there is none.
   */
  admit(client: string): Admission | Refusal {
    const { maxSessions, maxSessionsPerClient } = this.options;
    const entry = this.clients.get(client) ?? { sessions: new Set<Session>(), pending: 0 };
    if (entry.sessions.size + entry.pending >= maxSessionsPerClient) {
      const oldest = firstUnused(entry.sessions.values());
      if (oldest === undefined) return "client";
      this.end(oldest);
    }
    if (this.sessions.size + this.pending >= maxSessions) {
      const oldest = firstUnused(this.unused.values());
      if (oldest === undefined) return "process";
      this.end(oldest);
    }
    this.clients.set(client, entry);
    entry.pending++;
    this.pending++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        entry.pending--;
        this.pending--;
        this.forgetClient(client, entry);
      },
    };
  }

  /**
   * A server and transport for an `initialize` request. The session is
   * recorded only once the transport has given it an id (the SDK does that
   * while answering `initialize`); a refused initialize leaves nothing behind.
   */
  async open(owner: string, client: string): Promise<Session> {
    const state: SessionState = { subscriptions: new Set() };
    const server = createSessionServer(this.registry, this.settings, state);
    const holder: { session?: Session } = {};
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: this.options.newId,
      eventStore: new SessionEventStore(this.options.eventLogSize),
      ...(this.options.retryIntervalMs === undefined ? {} : { retryInterval: this.options.retryIntervalMs }),
      onsessioninitialized: (id) => this.record(holder.session as Session, id),
    });
    const session: Session = {
      id: "",
      server,
      transport,
      lastSeen: Date.now(),
      openStreams: 0,
      owner,
      client,
      used: false,
      ...state,
    };
    holder.session = session;
    server.onclose = () => this.forget(session);
    await server.connect(transport);
    return session;
  }

  private record(session: Session, id: string): void {
    session.id = id;
    this.sessions.set(id, session);
    this.unused.set(id, session);
    const entry = this.clients.get(session.client) ?? { sessions: new Set<Session>(), pending: 0 };
    entry.sessions.add(session);
    this.clients.set(session.client, entry);
    this.startSweeper();
  }

  /** Drops a session from every index (its server closed: DELETE, expiry, eviction, stop). */
  private forget(session: Session): void {
    if (session.id === "" || this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    this.unused.delete(session.id);
    const entry = this.clients.get(session.client);
    if (entry !== undefined) {
      entry.sessions.delete(session);
      this.forgetClient(session.client, entry);
    }
  }

  private forgetClient(client: string, entry: ClientEntry): void {
    if (entry.sessions.size === 0 && entry.pending === 0 && this.clients.get(client) === entry) {
      this.clients.delete(client);
    }
  }

  /** Ends a session now: out of the table at once, its server (and its calls' signals) closed. */
  private end(session: Session): void {
    this.forget(session);
    session.server.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    this.stopSweeper();
    const all = [...this.sessions.values()];
    this.sessions.clear();
    this.unused.clear();
    this.clients.clear();
    await Promise.all(all.map((session) => session.server.close().catch(() => undefined)));
  }

  private startSweeper(): void {
    const { idleTimeoutMs, unusedTimeoutMs } = this.options;
    if (this.sweeper !== null || (idleTimeoutMs <= 0 && unusedTimeoutMs <= 0)) return;
    const shortest = Math.min(...[idleTimeoutMs, unusedTimeoutMs].filter((ms) => ms > 0));
    const every = Math.max(1000, Math.min(60_000, shortest / 2));
    this.sweeper = setInterval(() => this.sweep(), every);
    // The sweeper must never keep a stopping process alive.
    this.sweeper.unref?.();
  }

  private stopSweeper(): void {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  private sweep(): void {
    const now = Date.now();
    const { idleTimeoutMs, unusedTimeoutMs } = this.options;
    for (const session of [...this.sessions.values()]) {
      if (session.openStreams > 0) continue;
      const timeout = !session.used && unusedTimeoutMs > 0 ? unusedTimeoutMs : idleTimeoutMs;
      if (timeout > 0 && session.lastSeen <= now - timeout) this.end(session);
    }
    if (this.sessions.size === 0) this.stopSweeper();
  }
}

/** The oldest session that was never used and streams nothing (an unused one normally streams nothing). */
function firstUnused(sessions: Iterable<Session>): Session | undefined {
  for (const session of sessions) if (!session.used && session.openStreams === 0) return session;
  return undefined;
}
