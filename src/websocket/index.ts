export type { Message } from "./inbox.ts";
export type { MessageSchemas } from "./message-schemas.ts";
export {
  type BroadcastOptions,
  checkBroadcastOptions,
  type ResolvedWebSocketOptions,
  resolveWebSocketOptions,
  type WebSocketOptions,
} from "./options.ts";
export {
  type CloseHandler,
  type ConnectHandler,
  type WebSocketDeps,
  type WebSocketHandler,
  WebSocketRoute,
  type WebSocketRouteOptions,
} from "./route.ts";
export { isSendableCloseCode, WebSocket } from "./websocket.ts";
