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

/** What `app.websocket(path, handler)` returns: add connect and close handlers to it. */
export class WebSocketRoute<P extends Params = Params, A = Record<string, unknown>> {
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
