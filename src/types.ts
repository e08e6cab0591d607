/**
 * `webfw/types`: the spec's type aliases (`webfw.types`, docs/spec-mapping.md) and every type a
 * route handle, a router, the app or a typed call carries (src/public-types.ts, issue #40), so
 * that a user's declaration emit can name them (docs/typescript.md). `URL`, `FormData` and
 * `WebSocketAdapter` are not here: the first two would shadow the Web globals, and the spec's
 * `WebSocketAdapter` is webfw's `WebSocket` (`webfw/websocket`); docs/spec-mapping.md maps them.
 */

import type { Url } from "./http/url.ts";

export type { Identity } from "./auth/identity.ts";
export type { Headers } from "./http/headers.ts";
export { QueryParams } from "./http/query-params.ts";
export type { Request } from "./http/request.ts";
export { Url } from "./http/url.ts";
export type * from "./public-types.ts";
export type PathParams = Record<string, string>;
export type Body = string | Uint8Array;
export type RequestBody = string | Uint8Array;
export type RequestURL = Url;
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
