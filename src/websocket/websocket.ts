import type { ServerWebSocket } from "bun";
import { describeIssue, validateJson } from "../args/validate-json.ts";
import type { Identity } from "../auth/identity.ts";
import type { Headers } from "../http/headers.ts";
import { parseJson } from "../http/json.ts";
import { QueryParams } from "../http/query-params.ts";
import { Url } from "../http/url.ts";
import type { WebSocketMessageTracer } from "../observability/hooks.ts";
import { BadRequestError, ValidationError, WebSocketDisconnect } from "../response/errors.ts";
import { Inbox, type Message } from "./inbox.ts";
import type { MessageSchemas } from "./message-schemas.ts";
import type { ResolvedWebSocketOptions } from "./options.ts";
import { Outbox } from "./outbox.ts";

export type { Message } from "./inbox.ts";

/** Where `broadcast` goes: Bun's pub/sub in this process, and the Redis relay when configured. */
export interface Broadcaster {
  publish(topic: string, text: string): void;
}

/** What the upgrade request leaves to the connection. */
export interface ConnectionInit<P, A> {
  url: string;
  pathParams: P;
  headers: Headers;
  identity: Identity | null;
  args: A;
  globalDependencies: Record<string, unknown>;
  routerDependencies: Record<string, unknown>;
  /** The pub/sub topic of `broadcast`: the route and its path parameters. */
  topic: string;
  broadcaster: Broadcaster;
  options: ResolvedWebSocketOptions;
  /** The route's message schemas (`messages({ client, server })`), checked by receiveJson/sendJson. */
  schemas?: MessageSchemas | null;
}

type State = "connecting" | "open" | "closing" | "closed";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * One WebSocket connection, as a handler sees it (spec `WebSocket`, type
 * alias `WebSocketAdapter`). Reads are pulled (`await ws.receiveText()`,
 * `for await (const msg of ws)`); messages that arrive earlier wait in a
 * bounded queue. Sends resolve once the data is handed to the socket, so a
 * handler that awaits them follows the client's pace.
 */
export class WebSocket<P extends Record<string, string> = Record<string, string>, A = Record<string, unknown>>
  implements AsyncIterable<Message>
{
  /** Unique connection id (a random UUID, unique across processes too). */
  readonly id: string = crypto.randomUUID();
  readonly pathParams: P;
  /** Headers of the upgrade request (after the app's request-header rules). */
  readonly headers: Headers;
  /** Set by authentication of the upgrade request; `null` when not authenticated. */
  readonly identity: Identity | null;
  /** Typed arguments of the route's `args` option. */
  readonly args: A;
  readonly globalDependencies: Record<string, unknown>;
  readonly routerDependencies: Record<string, unknown>;
  /** Per-connection state for the application (user name, room, …). */
  readonly state: Record<string, unknown> = {};

  /**
   * This route's own broadcast topic (the route and its path parameters): `broadcast()` sends to
   * it, and `app.publish(ws.topic, data)` does the same from any HTTP handler.
   */
  readonly topic: string;
  /** Topics this connection subscribed to with `subscribe` (besides its route's own). */
  private readonly topics = new Set<string>();
  /** @internal */ socket: ServerWebSocket<unknown> | null = null;
  /** @internal Spans of this connection's messages, when tracing is on (src/observability/websocket-trace.ts). */
  tracer: WebSocketMessageTracer | null = null;
  private readonly href: string;
  private readonly broadcaster: Broadcaster;
  private readonly schemas: MessageSchemas | null;
  private readonly inbox: Inbox;
  private readonly outbox: Outbox;
  private status: State = "connecting";
  private closeInfo: WebSocketDisconnect | null = null;
  private cachedUrl: Url | null = null;
  private cachedQuery: QueryParams | null = null;

  /** @internal Made for each connection by src/websocket/runtime.ts. */
  constructor(init: ConnectionInit<P, A>) {
    this.href = init.url;
    this.pathParams = init.pathParams;
    this.headers = init.headers;
    this.identity = init.identity;
    this.args = init.args;
    this.globalDependencies = init.globalDependencies;
    this.routerDependencies = init.routerDependencies;
    this.topic = init.topic;
    this.broadcaster = init.broadcaster;
    this.schemas = init.schemas ?? null;
    const { maxQueuedMessages, maxQueuedBytes, backpressureLimit } = init.options;
    this.inbox = new Inbox(
      { pause: () => this.socket?.pause(), resume: () => this.socket?.resume() },
      maxQueuedMessages,
      maxQueuedBytes,
    );
    const target = {
      send: (data: string | Uint8Array | ArrayBuffer) => this.socket?.send(data) ?? 0,
      getBufferedAmount: () => this.socket?.getBufferedAmount() ?? 0,
    };
    this.outbox = new Outbox(target, backpressureLimit, () => void this.close(1008, "send buffer full"));
  }

  /** The upgrade request's URL. */
  get url(): Url {
    this.cachedUrl ??= Url.parse(this.href);
    return this.cachedUrl;
  }

  /** Query parameters of the upgrade request. */
  get queryParams(): QueryParams {
    this.cachedQuery ??= new QueryParams(this.url.query);
    return this.cachedQuery;
  }

  /** The client's address. */
  get remoteAddress(): string | null {
    return this.socket?.remoteAddress ?? null;
  }

  /** `true` until either side starts closing. */
  get isOpen(): boolean {
    return this.status === "open";
  }

  /** `"connecting" | "open" | "closing" | "closed"` */
  get readyState(): State {
    return this.status;
  }

  /** Close code and reason once the connection is closing or closed, else `null`. */
  get closeCode(): number | null {
    return this.closeInfo?.code ?? null;
  }
  get closeReason(): string | null {
    return this.closeInfo?.reason ?? null;
  }

  /** Bytes Bun holds for this client that the socket has not taken yet. */
  get bufferedAmount(): number {
    return this.socket?.getBufferedAmount() ?? 0;
  }

  /** The next message, text or bytes. Throws `WebSocketDisconnect` once the peer has gone and the queue is empty. */
  receive(): Promise<Message> {
    return this.next();
  }

  /** The inbox's next message; with tracing on, the span of the previous one ends and this one's begins. */
  private next(): Promise<Message> {
    const tracer = this.tracer;
    if (tracer === null) return this.inbox.next();
    tracer.asked();
    return this.inbox.next().then((message) => {
      tracer.taken();
      return message;
    });
  }

  /** The next message as text; a binary message must be UTF-8 (else `BadRequestError`). */
  async receiveText(): Promise<string> {
    const message = await this.next();
    if (typeof message === "string") return message;
    try {
      return utf8.decode(message);
    } catch {
      throw new BadRequestError("WebSocket message is not valid UTF-8 text");
    }
  }

  /** The next message as bytes (text is encoded as UTF-8). */
  async receiveBytes(): Promise<Uint8Array> {
    const message = await this.next();
    return typeof message === "string" ? encoder.encode(message) : message;
  }

  /**
   * The next message parsed as JSON (nesting up to 128 levels); invalid JSON throws `BadRequestError`.
   * With a `client` message schema (`route.messages({ client })`), the validated value; a message
   * that does not match throws `ValidationError` (its `issues`; uncaught, close 1007).
   */
  async receiveJson<T = unknown>(): Promise<T> {
    const value = parseJson(await this.receiveText());
    const schema = this.schemas?.client;
    if (schema === undefined) return value as T;
    const result = await validateJson(schema, value, "message");
    if ("issues" in result) throw new ValidationError(result.issues);
    return result.value as T;
  }

  /** Iterates over messages until the peer closes (then ends without throwing). */
  [Symbol.asyncIterator](): AsyncIterator<Message, undefined> {
    const tracer = this.tracer;
    if (tracer === null) return { next: () => this.inbox.nextResult() };
    return {
      next: () => {
        tracer.asked();
        return this.inbox.nextResult().then((result) => {
          if (!result.done) tracer.taken();
          return result;
        });
      },
    };
  }

  sendText(text: string): Promise<void> {
    if (typeof text !== "string") return Promise.reject(new TypeError("sendText needs a string"));
    return this.outbox.send(text);
  }

  /**
   * Sends `JSON.stringify(value)` as a text message. With a `server` message schema, the value is
   * validated first and its validated form sent; a mismatch rejects with a `TypeError` naming the
   * issues (the handler's bug: uncaught, close 1011 and a log line).
   */
  sendJson(value: unknown): Promise<void> {
    const schema = this.schemas?.server;
    if (schema === undefined) return this.sendJsonText(value);
    return validateJson(schema, value, "message").then((result) => {
      if ("issues" in result) {
        const issues = result.issues.map(describeIssue);
        throw new TypeError(
          `sendJson: the message does not match the route's server schema (${issues.join("; ")})`,
        );
      }
      return this.sendJsonText(result.value);
    });
  }

  private sendJsonText(value: unknown): Promise<void> {
    const text = JSON.stringify(value);
    if (text === undefined)
      return Promise.reject(new TypeError("sendJson: the value is not JSON-serialisable"));
    return this.outbox.send(text);
  }

  sendBytes(data: Uint8Array | ArrayBuffer): Promise<void> {
    if (!(data instanceof Uint8Array) && !(data instanceof ArrayBuffer)) {
      return Promise.reject(new TypeError("sendBytes needs a Uint8Array or ArrayBuffer"));
    }
    return this.outbox.send(data);
  }

  /**
   * Sends a text message to every client connected to this route with the same
   * path parameters, this one included; with `app.configureBroadcast`, also to
   * those of every other process.
   */
  async broadcast(text: string): Promise<void> {
    if (typeof text !== "string") throw new TypeError("broadcast needs a string");
    this.broadcaster.publish(this.topic, text);
  }

  /**
   * Closes the connection (default 1000, normal closure). Codes: 1000–1003,
   * 1007–1014, or 3000–4999 for applications. Closing twice does nothing.
   */
  async close(code = 1000, reason = ""): Promise<void> {
    if (!isSendableCloseCode(code)) throw new RangeError(`invalid WebSocket close code ${code}`);
    if (typeof reason !== "string") throw new TypeError("the close reason must be a string");
    if (this.status === "closing" || this.status === "closed") return;
    this.status = "closing";
    this.finish(new WebSocketDisconnect(code, reason));
    this.socket?.close(code, reason);
  }

  /**
   * Receives what `app.publish(topic, data)` sends, from any handler and (with
   * `configureBroadcast`) any process, until `unsubscribe` or the connection ends.
   */
  subscribe(topic: string): void {
    if (typeof topic !== "string" || topic === "") throw new TypeError("subscribe needs a non-empty topic");
    this.topics.add(topic);
    this.socket?.subscribe(topic);
  }

  unsubscribe(topic: string): void {
    this.topics.delete(topic);
    this.socket?.unsubscribe(topic);
  }

  /** The topics this connection subscribed to (not its route's own). */
  get subscriptions(): string[] {
    return [...this.topics];
  }

  /** @internal Bun opened the socket. */
  attach(socket: ServerWebSocket<unknown>): void {
    this.socket = socket;
    this.status = "open";
    for (const topic of this.topics) socket.subscribe(topic);
  }

  /** @internal Bun delivered a message. */
  deliver(message: Message): void {
    if (this.status !== "open") return;
    this.tracer?.delivered(message);
    this.inbox.push(message);
  }

  /** @internal Bun's buffer for this client went down. */
  drained(): void {
    this.outbox.drain();
  }

  /** @internal The connection is closed (by either side). */
  closed(code: number, reason: string): void {
    this.status = "closed";
    this.finish(new WebSocketDisconnect(code, reason));
  }

  private finish(reason: WebSocketDisconnect): void {
    this.tracer?.closed(reason.code);
    this.closeInfo ??= reason;
    this.inbox.end(this.closeInfo);
    this.outbox.end(this.closeInfo);
  }
}

/** Close codes an endpoint may send (RFC 6455 §7.4; 1004–1006 and 1015 are never sent). */
export function isSendableCloseCode(code: number): boolean {
  return (
    Number.isInteger(code) &&
    ((code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999))
  );
}
