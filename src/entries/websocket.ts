/** `webfw/websocket`: what a WebSocket route's handlers receive and its options (docs/websockets.md). */
export { WebSocketDisconnect } from "../response/errors.ts";
export type { Message as WebSocketMessage } from "../websocket/inbox.ts";
export type { MessageSchemas as WebSocketMessageSchemas } from "../websocket/message-schemas.ts";
export type {
  BroadcastOptions,
  ResolvedWebSocketOptions,
  WebSocketOptions,
} from "../websocket/options.ts";
export type {
  CloseHandler,
  ConnectHandler,
  SocketShape,
  WebSocketDeps,
  WebSocketHandler,
  WebSocketRoute,
  WebSocketRouteOptions,
} from "../websocket/route.ts";
// The spec's name for what a handler receives; `WebSocket` itself would shadow the Web global
// (docs/exports.md, docs/spec-mapping.md).
export type { WebSocket as WebSocketAdapter } from "../websocket/websocket.ts";
