import type { WebSocketHandler as BunWebSocketHandler, Server, ServerWebSocket } from "bun";
import { Headers } from "../http/headers.ts";
import type { Request } from "../http/request.ts";
import { logger } from "../log/logger.ts";
import type { TracingHooks } from "../observability/hooks.ts";
import { BadRequestError, HttpError } from "../response/errors.ts";
import type { TopicHub } from "../topics/hub.ts";
import type { Message } from "./inbox.ts";
import { runCloseHandlers, runConnection, type WebSocketErrorLogger } from "./lifecycle.ts";
import type { ResolvedWebSocketOptions } from "./options.ts";
import type { WebSocketRoute } from "./route.ts";
import { type Broadcaster, WebSocket } from "./websocket.ts";

/** What Bun keeps on each socket (`ws.data`). */
export interface Connection {
  socket: WebSocket;
  route: WebSocketRoute;
}

const log: WebSocketErrorLogger = (error, where) =>
  logger.error("unhandled error in WebSocket code", { where, error });

/**
 * The WebSocket side of one started app: Bun's `websocket` handler object
 * (shared by every route; each socket carries its route in `ws.data`), the
 * open connections, and broadcast delivery through the app's topic hub
 * (Bun's pub/sub, plus Redis when `configureBroadcast` was called).
 */
export class WebSocketRuntime implements Broadcaster {
  /** Open connections, closed with 1001 when the server stops. */
  readonly connections = new Set<WebSocket>();
  /** Requests that were upgraded: their dispatcher must give Bun no response. */
  readonly upgraded = new WeakSet<globalThis.Request>();
  /** Passed to `Bun.serve({ websocket })`. */
  readonly handler: BunWebSocketHandler<Connection>;
  private server: Server<unknown> | null = null;

  constructor(
    private readonly options: ResolvedWebSocketOptions,
    /** The app's topics (src/topics/hub.ts): Bun's pub/sub here, Redis across processes. */
    private readonly hub: TopicHub,
    /** With tracing on: spans for each connection's messages (src/observability/websocket-trace.ts). */
    private readonly tracing: TracingHooks | null = null,
  ) {
    this.handler = {
      maxPayloadLength: options.maxPayloadLength,
      backpressureLimit: options.backpressureLimit,
      closeOnBackpressureLimit: options.closeOnBackpressureLimit,
      idleTimeout: options.idleTimeout,
      sendPings: options.sendPings,
      perMessageDeflate: options.perMessageDeflate,
      open: (ws) => this.open(ws),
      message: (ws, message) => ws.data.socket.deliver(message as Message),
      drain: (ws) => ws.data.socket.drained(),
      close: (ws, code, reason) => this.close(ws, code, reason),
    };
  }

  /** After listening: the server that delivers broadcasts coming from other processes. */
  attach(server: Server<unknown>): void {
    this.server = server;
  }

  /** Closes every connection (1001 "going away" by default), as the server stops. */
  closeAll(code = 1001, reason = "server shutting down"): void {
    for (const socket of this.connections) void socket.close(code, reason);
  }

  publish(topic: string, text: string): void {
    this.hub.publish(topic, text);
  }

  /**
   * The end of a WebSocket route's upgrade pipeline (after request headers,
   * middlewares, auth and args): hands the request to Bun with the connection
   * object as `ws.data`.
   */
  upgrade(route: WebSocketRoute, request: Request, topic: string): undefined {
    const raw = request.raw;
    if (!isUpgradeRequest(raw)) {
      throw new HttpError(426, "Upgrade Required: this path speaks WebSocket", {
        upgrade: "websocket",
        connection: "Upgrade",
      });
    }
    const server = request.server;
    if (server === null)
      throw new HttpError(426, "Upgrade Required: WebSocket needs a real server (app.start())");
    const socket = new WebSocket({
      url: raw.url,
      pathParams: request.pathParams,
      // A copy: the upgrade request's own headers object does not outlive it.
      headers: new Headers(new globalThis.Headers(request.headers.raw)),
      identity: request.identity,
      args: request.args,
      globalDependencies: request.globalDependencies,
      routerDependencies: request.routerDependencies,
      topic,
      broadcaster: this,
      options: this.options,
      schemas: route.schemas,
    });
    if (this.tracing) socket.tracer = this.tracing.webSocket(route.path, raw, request.context);
    const data: Connection = { socket, route };
    if (!server.upgrade(raw, { data })) throw new BadRequestError("invalid WebSocket handshake");
    this.server ??= server;
    this.upgraded.add(raw);
    return undefined;
  }

  private open(ws: ServerWebSocket<Connection>): void {
    const { socket, route } = ws.data;
    ws.binaryType = "uint8array";
    socket.attach(ws as ServerWebSocket<unknown>);
    ws.subscribe(socket.topic);
    this.connections.add(socket);
    // With tracing on, the handlers run in the upgrade request's trace (their spans nest under it).
    if (socket.tracer) void socket.tracer.run(() => runConnection(socket, route, log));
    else void runConnection(socket, route, log);
  }

  private close(ws: ServerWebSocket<Connection>, code: number, reason: string): void {
    const { socket, route } = ws.data;
    socket.closed(code, reason);
    this.connections.delete(socket);
    if (socket.tracer) void socket.tracer.run(() => runCloseHandlers(socket, route, log));
    else void runCloseHandlers(socket, route, log);
  }
}

/** `Upgrade: websocket` (case-insensitive, as RFC 6455 says). */
export function isUpgradeRequest(raw: globalThis.Request): boolean {
  return raw.headers.get("upgrade")?.toLowerCase() === "websocket";
}
