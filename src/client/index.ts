/**
 * `webfw/client`: a typed client for webfw apps, for browsers, Bun and Node
 * (docs/client.md). Imports nothing of the server at run time.
 */

export type { ArgsInput } from "../args/input-types.ts";
export type { FetchFunction, RawCallInput } from "./call.ts";
export { ClientInputError } from "./call.ts";
export {
  type Client,
  type ClientOptions,
  client,
  type InProcessApp,
  type MethodCaller,
  type SocketCaller,
} from "./client.ts";
export type { Jsonify } from "./json-type.ts";
export { MAX_REDIRECTS, type RedirectMode } from "./redirects.ts";
export { ResponseStream } from "./response-stream.ts";
export type {
  CallInput,
  CallOptions,
  ClientData,
  ClientFailure,
  ClientResult,
  ClientSuccess,
  ErrorStatusOf,
  RoutesOf,
  SocketInput,
  SocketOptions,
  SocketReceive,
  SocketSend,
  ValidationIssue,
} from "./route-types.ts";
export { type SseMessage, SseParser, SseStream } from "./sse-stream.ts";
export { ClientResultError, unwrap } from "./unwrap.ts";
export {
  ClientWebSocket,
  type SocketClose,
  SocketOpenError,
  type WebSocketConstructor,
} from "./websocket.ts";
