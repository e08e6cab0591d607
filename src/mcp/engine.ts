/**
 * The protocol engine: the official MCP SDK behind webfw's endpoint. This is
 * the only module that loads `@modelcontextprotocol/server` at run time, and
 * it is itself imported lazily (src/mcp/endpoint.ts), so an app without MCP
 * never loads the SDK. It receives requests the HTTP layer (src/mcp/http.ts)
 * has already checked, read and parsed, and answers them through sessions
 * (one SDK server + transport each) or, in stateless mode, a fresh server
 * per request.
 */

import { type Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { Request } from "../http/request.ts";
import { CARRIER_KEY, type CallCarrier } from "./context.ts";
import type { EngineInput, McpEngine } from "./engine-types.ts";
import type { ListKind, McpCatalog } from "./registry.ts";
import { shapeAnswer } from "./response-shape.ts";
import { createSessionServer, type ServerSettings } from "./server-factory.ts";
import { clientOf, principalOf } from "./session-owner.ts";
import { type Session, type SessionOptions, SessionTable } from "./sessions.ts";

export interface EngineSettings extends ServerSettings, SessionOptions {
  stateless: boolean;
}

function jsonError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json(
    { jsonrpc: "2.0", id: null, error: { code, message } },
    { status, headers: { "content-type": "application/json", ...headers } },
  );
}

/**
 * The request as the SDK transport should see it: its body is already read, and its Accept
 * covers SSE (the answer is reshaped for the client afterwards). The protocol-version header
 * is the session's negotiated one: the transport reads it to decide what the stream may carry
 * (priming events for resumption need 2025-11-25), and a client that sends an older supported
 * version on a newer session must not lose resumability for it.
 */
function forTransport(raw: globalThis.Request, method: string, negotiated?: string): globalThis.Request {
  const headers = new Headers(raw.headers);
  if (method === "POST") headers.set("accept", "application/json, text/event-stream");
  if (negotiated !== undefined && headers.has("mcp-protocol-version"))
    headers.set("mcp-protocol-version", negotiated);
  return new globalThis.Request(raw.url, { method, headers });
}

function carrierFor(request: Request, protocolVersion: string | undefined) {
  const carrier: CallCarrier = { request, protocolVersion };
  // `authInfo` is the SDK's per-message channel from the HTTP request to the handler's context.
  return { token: "", clientId: "", scopes: [], extra: { [CARRIER_KEY]: carrier } };
}

/** A POST through an SDK transport, its answer shaped as JSON or SSE for this client. */
async function answerPost(
  transport: WebStandardStreamableHTTPServerTransport,
  input: EngineInput,
  negotiated?: string,
): Promise<Response> {
  const response = await transport.handleRequest(forTransport(input.raw, "POST", negotiated), {
    parsedBody: input.body,
    authInfo: carrierFor(input.request, input.protocolVersion),
  });
  return shapeAnswer(response, input.acceptsStream, input.requestCount, Array.isArray(input.body));
}

/** Counts a streaming answer as open on its session until the client has it all or goes away. */
function tracked(response: Response, session: Session, method: string): Response {
  const body = response.body;
  if (body === null || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    return response;
  }
  session.openStreams++;
  // A GET stream may stay silent for minutes: one comment now makes the headers (and the open stream)
  // reach the client and any proxy at once, instead of with the first notification.
  const greeting = method === "GET" ? new TextEncoder().encode(": stream open\n\n") : null;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    session.openStreams--;
    session.lastSeen = Date.now();
  };
  const reader = body.getReader();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      if (greeting !== null) controller.enqueue(greeting);
    },
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          finish();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  return new Response(stream, response);
}

class Engine implements McpEngine {
  private readonly sessions: SessionTable;
  private readonly unlisten: () => void;

  constructor(
    private readonly registry: McpCatalog,
    private readonly settings: EngineSettings,
  ) {
    this.sessions = new SessionTable(registry, settings, settings);
    this.unlisten = registry.onChange((kind) => this.listChanged(kind));
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  hasSession(id: string): boolean {
    return this.sessions.find(id) !== undefined;
  }

  async handle(input: EngineInput): Promise<Response> {
    if (this.settings.stateless) return this.stateless(input);
    const { raw, sessionId } = input;
    const method = raw.method;
    const principal = principalOf(input.request.identity);
    if (sessionId === null) {
      if (method !== "POST") {
        return jsonError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
      }
      // A POST without a session that is not an initialize is answered on its own, as in stateless
      // mode: curl, health checks and one-shot clients need no handshake (what createMcpHandler does).
      if (!input.initialize) return this.stateless(input);
      return this.initialize(input, principal);
    }
    const session = this.sessions.find(sessionId);
    // Bound to the identity that opened it: anyone else is told it does not exist (nothing leaks,
    // not even that the id is live), and does not keep it alive.
    if (session === undefined || session.owner !== principal) {
      return jsonError(404, -32001, "Session not found");
    }
    this.sessions.touch(session, method === "GET" || (method === "POST" && input.requestCount > 0));
    if (method === "POST") return this.post(session, input);
    const negotiated = session.server.getNegotiatedProtocolVersion();
    const response = await session.transport.handleRequest(forTransport(raw, method, negotiated));
    return method === "GET" ? tracked(response, session, method) : response;
  }

  /** Opens a session for `initialize`, within the client's share and the process's cap. */
  private async initialize(input: EngineInput, principal: string): Promise<Response> {
    const client = clientOf(input.request, principal);
    const admission = this.sessions.admit(client);
    if (admission === "client") {
      return jsonError(
        429,
        -32000,
        `too many MCP sessions for this client (${this.settings.maxSessionsPerClient}, all in use); end one with DELETE or try again later`,
        { "retry-after": "5" },
      );
    }
    if (admission === "process") {
      return jsonError(503, -32000, "too many MCP sessions; try again later", { "retry-after": "5" });
    }
    try {
      const session = await this.sessions.open(principal, client);
      const response = await this.post(session, input);
      // An initialize the SDK refused (bad version, malformed) leaves a session that never got an id.
      if (session.id === "") await session.server.close().catch(() => undefined);
      return response;
    } finally {
      admission.release();
    }
  }

  private async post(session: Session, input: EngineInput): Promise<Response> {
    const negotiated = session.server.getNegotiatedProtocolVersion();
    return tracked(await answerPost(session.transport, input, negotiated), session, "POST");
  }

  /** No sessions: a server and transport for this one POST, closed when its answer is complete. */
  private async stateless(input: EngineInput): Promise<Response> {
    if (input.raw.method !== "POST") {
      return jsonError(
        405,
        -32000,
        "Method not allowed: this endpoint is stateless (no sessions, no GET stream)",
        {
          allow: "POST, OPTIONS",
        },
      );
    }
    const server = createSessionServer(this.registry, this.settings, { subscriptions: new Set() });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    return closeAfter(await answerPost(transport, input), server);
  }

  async notifyResourceUpdated(uri: string): Promise<void> {
    const sends: Promise<void>[] = [];
    for (const session of this.sessions.all()) {
      if (session.subscriptions.has(uri)) {
        sends.push(session.server.sendResourceUpdated({ uri }).catch(() => undefined));
      }
    }
    await Promise.all(sends);
  }

  private listChanged(kind: ListKind): void {
    for (const session of this.sessions.all()) {
      const server = session.server;
      const sent =
        kind === "tools"
          ? server.sendToolListChanged()
          : kind === "prompts"
            ? server.sendPromptListChanged()
            : server.sendResourceListChanged();
      // A session whose client has no stream open just misses it: lists are re-read on demand.
      Promise.resolve(sent).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.unlisten();
    await this.sessions.closeAll();
  }
}

/** Closes a per-request server once its answer has been sent whole (or the client left). */
function closeAfter(response: Response, server: Server): Response {
  const body = response.body;
  if (body === null || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    server.close().catch(() => undefined);
    return response;
  }
  const reader = body.getReader();
  const close = () => server.close().catch(() => undefined);
  return new Response(
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
            close();
          } else controller.enqueue(value);
        } catch (error) {
          controller.error(error);
          close();
        }
      },
      cancel(reason) {
        close();
        return reader.cancel(reason);
      },
    }),
    response,
  );
}

export function createEngine(registry: McpCatalog, settings: EngineSettings): McpEngine {
  return new Engine(registry, settings);
}
