/**
 * Types only, erased at run time. Names every subpath's entry module so that their declaration
 * files are part of any program that imports `webfw`: a user's declaration emit (`declaration:
 * true`, `tsc --incremental`) then writes `import("webfw/mcp").ToolOptions`-style references for
 * every type a route handle, a router or the app carries, even when the user's module imports
 * `webfw` alone; otherwise the emit fails with TS2742 (issue #40, docs/typescript.md).
 */
export type {} from "./client/index.ts";
export type {} from "./entries/cache.ts";
export type {} from "./entries/cors.ts";
export type {} from "./entries/jobs.ts";
export type {} from "./entries/mcp.ts";
export type {} from "./entries/native.ts";
export type {} from "./entries/observability.ts";
export type {} from "./entries/rate-limit.ts";
export type {} from "./entries/secure-headers.ts";
export type {} from "./entries/sessions.ts";
export type {} from "./entries/testing.ts";
export type {} from "./entries/websocket.ts";
export type {} from "./templating/index.ts";
export type {} from "./types.ts";
