/**
 * The contract between the HTTP layer (always loaded) and the engine (loaded
 * on first use): types only, so importing it costs nothing at run time.
 */

import type { Request } from "../http/request.ts";

/** A request the HTTP layer has checked (origin, auth, content type) and, for POST, read and parsed. */
export interface EngineInput {
  /** The Web request as it arrived (its body already consumed for POST). */
  raw: globalThis.Request;
  /** The webfw request: identity, dependencies, headers for `ctx`. */
  request: Request;
  /** `Mcp-Session-Id`, or `null` when absent. */
  sessionId: string | null;
  /** The parsed JSON-RPC message or batch (POST only). */
  body: unknown;
  /** Whether the POST carries an `initialize` request. */
  initialize: boolean;
  /** How many requests (messages with an id and a method) the POST carries. */
  requestCount: number;
  /** The client's Accept lists `text/event-stream` (else every answer is JSON). */
  acceptsStream: boolean;
  /** `MCP-Protocol-Version` of the request, if sent. */
  protocolVersion: string | undefined;
}

export interface McpEngine {
  handle(input: EngineInput): Promise<globalThis.Response>;
  hasSession(id: string): boolean;
  readonly sessionCount: number;
  notifyResourceUpdated(uri: string): Promise<void>;
  close(): Promise<void>;
}
