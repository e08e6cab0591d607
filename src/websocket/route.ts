import type { BodyInput, SchemaOutput } from "../args/input-types.ts";
import type { ArgShape } from "../args/t.ts";
import { isBodySchema } from "../args/validate-json.ts";
import { type BodySchema, type EmptyArgs, patternParams } from "../router/route.ts";
import type { MessageSchemas } from "./message-schemas.ts";
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
  /** @internal Message schemas checked at run time (`messages({ client, server })`); null when none. */
  schemas: MessageSchemas | null = null;

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
   * Types only: `messages<ChatIn, ChatOut>()`. Give schemas instead to have them checked at run
   * time too, types inferred from them: `messages({ client: ChatIn, server: ChatOut })` (zod,
   * valibot, arktype or a `t` spec); `ws.receiveJson()` then returns the validated value (a
   * mismatch throws `ValidationError`, which closes the connection with 1007 when uncaught) and
   * `ws.sendJson(value)` checks what the handler sends.
   */
  messages<C, S>(): WebSocketRoute<P, A, Path, Prefix, Args, C, S>;
  messages<CS = undefined, SS = undefined>(schemas: {
    client?: CS & BodySchema<unknown>;
    server?: SS & BodySchema<unknown>;
  }): WebSocketRoute<
    P,
    A,
    Path,
    Prefix,
    Args,
    [CS] extends [undefined] ? unknown : BodyInput<CS>,
    [SS] extends [undefined] ? unknown : SchemaOutput<SS>
  >;
  messages(schemas?: MessageSchemas): this {
    if (schemas === undefined) return this;
    if (typeof schemas !== "object" || schemas === null)
      throw new TypeError(`messages of WebSocket ${this.path}: give { client?, server? } schemas`);
    for (const side of ["client", "server"] as const) {
      const schema = schemas[side];
      if (schema !== undefined && !isBodySchema(schema)) {
        throw new TypeError(
          `messages of WebSocket ${this.path}: ${side} must be a Standard Schema or a t spec`,
        );
      }
    }
    this.schemas = { client: schemas.client, server: schemas.server };
    return this;
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
