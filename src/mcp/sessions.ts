/**
 * The MCP sessions of this process: one SDK server and one Streamable HTTP
 * transport per session, found by `Mcp-Session-Id`. A session ends on
 * `DELETE`, when the app stops, or after `idleTimeoutMs` without a request
 * and without an open stream (so an abandoned client does not hold memory
 * for ever). Loaded only with the engine.
 */

import { type Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { SessionEventStore } from "./event-store.ts";
import type { Registry } from "./registry.ts";
import { createSessionServer, type ServerSettings, type SessionState } from "./server-factory.ts";

export interface Session extends SessionState {
  id: string;
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** Responses still streaming (GET notification streams, SSE answers): a session with one is not idle. */
  openStreams: number;
}

export interface SessionOptions {
  idleTimeoutMs: number;
  maxSessions: number;
  /** Events kept per session for `Last-Event-ID` resumption. */
  eventLogSize: number;
  /** Suggested reconnection delay sent in SSE `retry:` fields. */
  retryIntervalMs: number | undefined;
  /** Makes the id of a new session (carries which process owns it, with `--processes`). */
  newId: () => string;
}

export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  private sweeper: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly registry: Registry,
    private readonly settings: ServerSettings,
    private readonly options: SessionOptions,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): Session | undefined {
    const session = this.sessions.get(id);
    if (session) session.lastSeen = Date.now();
    return session;
  }

  all(): IterableIterator<Session> {
    return this.sessions.values();
  }

  get full(): boolean {
    return this.sessions.size >= this.options.maxSessions;
  }

  /**
   * A server and transport for an `initialize` request. The session is
   * recorded only once the transport has given it an id (the SDK does that
   * while answering `initialize`); a refused initialize leaves nothing behind.
   */
  async open(): Promise<Session> {
    const state: SessionState = { subscriptions: new Set() };
    const server = createSessionServer(this.registry, this.settings, state);
    const holder: { session?: Session } = {};
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: this.options.newId,
      eventStore: new SessionEventStore(this.options.eventLogSize),
      ...(this.options.retryIntervalMs === undefined ? {} : { retryInterval: this.options.retryIntervalMs }),
      onsessioninitialized: (id) => {
        const session = holder.session as Session;
        session.id = id;
        this.sessions.set(id, session);
        this.startSweeper();
      },
    });
    const session: Session = { id: "", server, transport, lastSeen: Date.now(), openStreams: 0, ...state };
    holder.session = session;
    server.onclose = () => {
      if (session.id !== "") this.sessions.delete(session.id);
    };
    await server.connect(transport);
    return session;
  }

  async closeAll(): Promise<void> {
    this.stopSweeper();
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((session) => session.server.close().catch(() => undefined)));
  }

  private startSweeper(): void {
    if (this.sweeper !== null || this.options.idleTimeoutMs <= 0) return;
    const every = Math.max(1000, Math.min(60_000, this.options.idleTimeoutMs / 2));
    this.sweeper = setInterval(() => this.sweep(), every);
    // The sweeper must never keep a stopping process alive.
    this.sweeper.unref?.();
  }

  private stopSweeper(): void {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  private sweep(): void {
    const deadline = Date.now() - this.options.idleTimeoutMs;
    for (const session of this.sessions.values()) {
      if (session.openStreams > 0 || session.lastSeen > deadline) continue;
      this.sessions.delete(session.id);
      session.server.close().catch(() => undefined);
    }
    if (this.sessions.size === 0) this.stopSweeper();
  }
}
