/** The spec's type aliases (`webfw.types`), as TypeScript types. */

import type { Identity } from "./auth/identity.ts";
import type { Headers } from "./http/headers.ts";
import type { QueryParams } from "./http/query-params.ts";
import type { Request } from "./http/request.ts";
import type { Url } from "./http/url.ts";
import type { WebSocket } from "./websocket/websocket.ts";

export type { Headers, Identity, QueryParams, Request, Url };
export type PathParams = Record<string, string>;
export type Body = string | Uint8Array;
export type RequestBody = string | Uint8Array;
export type URL = Url;
export type RequestURL = Url;
export type FormData = Record<string, string>;
export type Files = Record<string, Uint8Array>;
export type IPAddress = string | null;
export type RequestMethod =
  | "GET"
  | "POST"
  | "PUT"
  | "DELETE"
  | "PATCH"
  | "HEAD"
  | "OPTIONS"
  | "CONNECT"
  | "TRACE";
export type Method = RequestMethod;
/** The WebSocket object a WebSocket handler receives (spec `WebSocketAdapter`). */
export type WebSocketAdapter<P extends Record<string, string> = Record<string, string>> = WebSocket<P>;
