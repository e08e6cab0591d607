/**
 * Public types of `app.mcp`: what a tool, resource or prompt function gets
 * (`ctx`) and may return. Protocol shapes come from the official SDK as
 * types only (`import type`): nothing here loads it at run time.
 */

import type {
  CallToolResult,
  ContentBlock,
  CreateMessageRequestParams,
  CreateMessageResult,
  CreateMessageResultWithTools,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
  LoggingLevel,
  PromptMessage,
  Root,
} from "@modelcontextprotocol/server";
import type { Identity } from "../auth/identity.ts";
import type { Request } from "../http/request.ts";
import type { AppTypes, ClaimsOf, GlobalDepsOf, NoAppTypes, RouterDepsOf } from "../router/route.ts";

export type Awaitable<T> = T | Promise<T>;

export type {
  CallToolResult,
  ContentBlock,
  CreateMessageResult,
  ElicitResult,
  LoggingLevel,
  PromptMessage,
  Root,
};

/** An icon of a tool, resource or prompt (MCP 2025-11-25). */
export interface McpIcon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}

// Defined beside the `mcp` route option, which the router's types import without the rest of MCP.
export type { ToolAnnotations } from "./route-tools/options.ts";

export interface ResourceAnnotations {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
}

/** A prompt argument as listed by `prompts/list`. */
export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** A prompt message as a function may return it; `content` may be a plain string. */
export interface PromptMessageInput {
  role: "user" | "assistant";
  content: string | ContentBlock;
}

/**
 * Suggests values for one prompt argument or URI placeholder
 * (`completion/complete`): `value` is what the user typed so far, `context`
 * the values of the other arguments already chosen. Return at most 100.
 */
export type CompleteFn = (value: string, context: Record<string, string>) => Awaitable<readonly string[]>;

/** `ctx.sample(...)`: a prompt string, or the full `sampling/createMessage` params. */
export type SampleInput = string | CreateMessageRequestParams;

/** `ctx.elicit(...)`: the full `elicitation/create` params (form or URL mode). */
export type ElicitInput = ElicitRequestFormParams | ElicitRequestURLParams;

/**
 * The second argument of every tool, resource and prompt function: the
 * request-scoped view of the MCP call.
 */
export interface McpContext<T extends AppTypes = NoAppTypes> {
  /**
   * Sends a `notifications/message` log entry to the client, on the call's own
   * stream; dropped when below the level the client set with `logging/setLevel`.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /** Reports progress (`notifications/progress`); does nothing when the caller sent no progress token. */
  progress(done: number, total?: number, message?: string): Promise<void>;
  /** Aborted when the client cancels the call (`notifications/cancelled`) or its session ends. */
  readonly signal: AbortSignal;
  /** Asks the client's model for a completion (`sampling/createMessage`); a string is one user message. */
  sample(
    input: SampleInput,
    options?: { maxTokens?: number },
  ): Promise<CreateMessageResult | CreateMessageResultWithTools>;
  /** Asks the user through the client (`elicitation/create`). */
  elicit(input: ElicitInput): Promise<ElicitResult>;
  /**
   * Closes this call's SSE stream now (SEP-1699 polling): the call goes on, and the client
   * reconnects with `Last-Event-ID` to get the rest. Does nothing when the call has no stream.
   */
  closeStream(): void;
  /** The client's roots (`roots/list`). */
  listRoots(): Promise<Root[]>;
  /** Who is calling: the app's `AuthenticationHandler` result for this HTTP request, or `null`. */
  readonly identity: Identity<ClaimsOf<T>> | null;
  /** `app.injectGlobal(...)` values. */
  readonly globalDependencies: GlobalDepsOf<T>;
  /** `app.inject(...)` values. */
  readonly routerDependencies: RouterDepsOf<T>;
  /** The HTTP request that carried the call (headers, cookies, `ipAddr`, …). */
  readonly request: Request<Record<string, string>, Record<string, unknown>, unknown, T>;
  /** The MCP session, when the endpoint keeps sessions. */
  readonly sessionId: string | undefined;
  /** The JSON-RPC id of the call. */
  readonly requestId: string | number;
  /** The negotiated protocol version of the session (or of the request, stateless). */
  readonly protocolVersion: string | undefined;
}

/**
 * What a tool may return: a string (one text item), a content array, a full
 * `CallToolResult` (`content`, `structuredContent`, `isError`), or any other
 * value, sent as its JSON text (and as `structuredContent` when the tool has
 * an `outputSchema`).
 */
export type ToolReturn = string | ContentBlock[] | CallToolResult | unknown;
