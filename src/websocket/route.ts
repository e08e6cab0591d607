import type { ArgShape } from "../args/t.ts";
import { type EmptyArgs, patternParams } from "../router/route.ts";
import { topicOf } from "./topic.ts";
import type { WebSocket } from "./websocket.ts";

/** The second argument of WebSocket handlers, connect and close handlers. */
export interface WebSocketDeps {
  globalDependencies: Record<string, unknown>;
  routerDependencies: Record<string, unknown>;
}

type Params = Record<string, string>;

/** Runs once per connection; the connection closes (1000) when it returns. */
export type WebSocketHandler<P extends Params = Params, A = Record<string, unknown>> = (
  ws: WebSocket<P, A>,
  deps: WebSocketDeps,
) => unknown;

/**
 * Runs when a client connects, before the handler. A string it returns is sent
 * as the first message (any other value except `undefined`/`null` is sent as
 * JSON); calling `ws.close()` refuses the connection and the handler never runs.
 */
export type ConnectHandler<P extends Params = Params, A = Record<string, unknown>> = (
  ws: WebSocket<P, A>,
  deps: WebSocketDeps,
) => unknown;

/** Runs once after the connection has closed, whichever side closed it; `ws.closeCode` tells how. */
export type CloseHandler<P extends Params = Params, A = Record<string, unknown>> = (
  ws: WebSocket<P, A>,
  deps: WebSocketDeps,
) => unknown;

export interface WebSocketRouteOptions<A extends ArgShape = EmptyArgs> {
  /** Refuse the upgrade with 401 unless the request authenticates. */
  authRequired?: boolean;
  /** Typed arguments from the path parameter of that name, else the query string; 400 before upgrading when invalid. */
  args?: A;
}

/** The compile-time description of a WebSocket route, for `webfw/client` (docs/client.md); never set at run time. */
export interface SocketShape<Path extends string, Prefix extends string, Args, Client, Server> {
  readonly path: Path;
  readonly prefix: Prefix;
  /** The `args` shape as written. */
  readonly args: Args;
  /** What a client sends (declared with `messages<Client, Server>()`). */
  readonly client: Client;
  /** What the server sends. */
  readonly server: Server;
}

/** What `app.websocket(path, handler)` returns: add connect and close handlers to it. */
export class WebSocketRoute<
  P extends Params = Params,
  A = Record<string, unknown>,
  Path extends string = string,
  Prefix extends string = string,
  Args = unknown,
  Client = unknown,
  Server = unknown,
> {
  /** Phantom field: the route's types for `webfw/client`; never set at run time. */
  declare readonly "~socket": SocketShape<Path, Prefix, Args, Client, Server>;
  /** @internal The full pattern, router prefixes included (updated when a router is mounted). */
  path: string;
  /** @internal */ readonly handler: WebSocketHandler<P, A>;
  /** @internal */ readonly options: WebSocketRouteOptions<ArgShape>;
  /** @internal */ readonly connectHandlers: ConnectHandler<P, A>[] = [];
  /** @internal */ readonly closeHandlers: CloseHandler<P, A>[] = [];

  constructor(path: string, handler: WebSocketHandler<P, A>, options: WebSocketRouteOptions<ArgShape> = {}) {
    if (typeof handler !== "function") throw new TypeError(`handler of WebSocket ${path} is not a function`);
    if (typeof options !== "object" || options === null)
      throw new TypeError(`options of WebSocket ${path} must be an object`);
    this.path = path;
    this.handler = handler;
    this.options = options;
  }

  /**
   * The broadcast topic of the connections with these path parameters (what `ws.broadcast()`
   * sends to): `app.publish(chat.topic({ room: "lobby" }), "hello")` from any HTTP handler.
   */
  topic(params: P): string {
    return topicOf(this.path, patternParams(this.path), params);
  }

  /**
   * Declares the messages of this route for a typed client (`webfw/client`): `Client` is what
   * clients send, `Server` what the handler sends (as JSON, or text when it is a string type).
   * Types only, nothing is checked at run time: validate what `ws.receiveJson()` gives
   * (`schema.parse(...)`). `export const chat = app.websocket(…).messages<ChatIn, ChatOut>()`.
   */
  messages<C, S>(): WebSocketRoute<P, A, Path, Prefix, Args, C, S> {
    return this as unknown as WebSocketRoute<P, A, Path, Prefix, Args, C, S>;
  }

  /** Adds a connect handler (several run in registration order). */
  onConnect(fn: ConnectHandler<P, A>): this {
    if (typeof fn !== "function") throw new TypeError("onConnect needs a function");
    this.connectHandlers.push(fn);
    return this;
  }

  /** Adds a close handler (several run in registration order). */
  onClose(fn: CloseHandler<P, A>): this {
    if (typeof fn !== "function") throw new TypeError("onClose needs a function");
    this.closeHandlers.push(fn);
    return this;
  }
}
