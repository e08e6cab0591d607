/**
 * `client<typeof import("./routes.ts")>(baseUrl)`: a typed client for a webfw app
 * over `fetch` (docs/client.md). One function per HTTP method takes the route's
 * path pattern as registered (`api.get("/notes/:id", { params: { id } })`); the
 * types come from the route handles the app's modules export, nothing is
 * generated and nothing of the server is bundled.
 */
import {
  baseOf,
  buildRequest,
  ClientInputError,
  type FetchFunction,
  fillPath,
  queryString,
  type RawCallInput,
  readResult,
} from "./call.ts";
import { type RedirectMode, sendFollowing } from "./redirects.ts";
import type {
  ClientResult,
  InputTuple,
  PathsFor,
  RouteAt,
  RoutesOf,
  SocketInputTuple,
  SocketReceive,
  SocketSend,
} from "./route-types.ts";
import { ClientWebSocket, socketUrl, type WebSocketConstructor } from "./websocket.ts";

/** One HTTP method of a client: the paths it has, each call typed by its route. */
export type MethodCaller<Map, M extends string> = <P extends PathsFor<Map, M>>(
  path: P,
  ...input: InputTuple<RouteAt<Map, M, P>>
) => Promise<ClientResult<RouteAt<Map, M, P>>>;

/** The client for the routes of `Mod` (a module's type, or several intersected). */
export interface Client<Mod> {
  get: MethodCaller<RoutesOf<Mod>, "GET">;
  post: MethodCaller<RoutesOf<Mod>, "POST">;
  put: MethodCaller<RoutesOf<Mod>, "PUT">;
  patch: MethodCaller<RoutesOf<Mod>, "PATCH">;
  delete: MethodCaller<RoutesOf<Mod>, "DELETE">;
  head: MethodCaller<RoutesOf<Mod>, "HEAD">;
  options: MethodCaller<RoutesOf<Mod>, "OPTIONS">;
  /** Connects to a WebSocket route: `api.ws("/chat/:room", { params: { room } })`. */
  ws: SocketCaller<RoutesOf<Mod>>;
}

/** Opens a typed connection to one of the app's WebSocket routes. */
export type SocketCaller<Map> = <P extends PathsFor<Map, "WS">>(
  path: P,
  ...input: SocketInputTuple<RouteAt<Map, "WS", P>>
) => ClientWebSocket<SocketSend<RouteAt<Map, "WS", P>>, SocketReceive<RouteAt<Map, "WS", P>>>;

export interface ClientOptions {
  /** The `fetch` to send with (default: the global one); `app.request` in tests (see `testClient`). */
  fetch?: FetchFunction;
  /** Headers for every request, or a function that gives them per request (a fresh token). */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** The `WebSocket` constructor for `ws()` (default: the global one; on Node before 22 pass the `ws` package's). */
  WebSocket?: WebSocketConstructor;
  /**
   * Which redirects are followed: `"same-origin"` (default) follows those that stay on the
   * request's origin and resolves with the 3xx answer of one to another origin; `"manual"`
   * follows none. Headers and bodies never reach another origin (docs/client.md, "Redirects").
   */
  redirect?: RedirectMode;
}

const METHODS = ["get", "post", "put", "patch", "delete", "head", "options"] as const;

/** A typed client for the app at `baseUrl` (absolute, or relative to the page in a browser). */
export function client<Mod>(baseUrl: string | URL, options: ClientOptions = {}): Client<Mod> {
  const base = baseOf(baseUrl);
  const send: FetchFunction = options.fetch ?? ((request) => globalThis.fetch(request));
  const redirect = options.redirect ?? "same-origin";
  if (redirect !== "same-origin" && redirect !== "manual")
    throw new ClientInputError(`redirect must be "same-origin" or "manual", got ${JSON.stringify(redirect)}`);
  const out: Record<string, unknown> = {};
  for (const name of METHODS) {
    const method = name.toUpperCase();
    out[name] = async (path: string, input?: RawCallInput) => {
      const defaults = typeof options.headers === "function" ? await options.headers() : options.headers;
      const response = await sendFollowing(send, buildRequest(base, method, path, input, defaults), redirect);
      return readResult(response, method);
    };
  }
  out.ws = (
    path: string,
    input: RawCallInput & { protocols?: string | string[]; headers?: Record<string, string> } = {},
  ) => {
    const Socket = options.WebSocket ?? (globalThis.WebSocket as unknown as WebSocketConstructor | undefined);
    if (!Socket) throw new ClientInputError("no WebSocket here: pass one as the client's `WebSocket` option");
    const url = socketUrl(`${base}${fillPath(path, input.params)}${queryString(input.args)}`);
    // Browsers take (url, protocols); Bun also takes (url, { headers, protocols }).
    const second = input.headers ? { headers: input.headers, protocols: input.protocols } : input.protocols;
    return new ClientWebSocket(url, Socket, second);
  };
  return out as unknown as Client<Mod>;
}

/** Something with webfw's in-process `request` (a `Webfw` app), without importing the server here. */
export interface InProcessApp {
  request(input: globalThis.Request): Promise<globalThis.Response>;
}

/**
 * The same typed client, sending through `app.request` (the whole pipeline, no socket):
 * `const api = testClient<typeof import("./app.ts")>(app)`.
 */
export function testClient<Mod>(app: InProcessApp, options: Omit<ClientOptions, "fetch"> = {}): Client<Mod> {
  return client<Mod>("http://localhost", { ...options, fetch: (request) => app.request(request) });
}
