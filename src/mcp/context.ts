/**
 * `ctx`, the second argument of tool, resource and prompt functions, built
 * from the SDK's per-request context. Everything a function sends to the
 * client (logs, progress, sampling, elicitation, roots) goes out as a message
 * *related* to the call, so it travels on the call's own SSE stream: it
 * reaches a client that never opened the GET stream, and a stateless server.
 */

import type { ServerContext } from "@modelcontextprotocol/server";
import type { Request } from "../http/request.ts";
import type { ElicitInput, McpContext, SampleInput } from "./types.ts";

/** What the HTTP side hands to the engine with each message (`authInfo.extra`). */
export interface CallCarrier {
  /** The webfw Request of the HTTP request that carried the message. */
  request: Request;
  /** Negotiated protocol version (the session's, or the request header's in stateless mode). */
  protocolVersion: string | undefined;
}

export const CARRIER_KEY = "webfw";

/** The carrier the transport passed along with this message, if any (in-memory clients have none). */
export function carrierOf(ctx: ServerContext): CallCarrier | undefined {
  const extra = ctx.http?.authInfo?.extra;
  const carrier = extra?.[CARRIER_KEY];
  return carrier === undefined ? undefined : (carrier as CallCarrier);
}

export function buildContext(
  ctx: ServerContext,
  carrier: CallCarrier,
  negotiatedVersion: string | undefined,
): McpContext {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  const request = carrier.request;
  return {
    log: (level, data, logger) => ctx.mcpReq.log(level, data, logger),
    progress: async (done, total, message) => {
      if (progressToken === undefined) return;
      const params: Record<string, unknown> = { progressToken, progress: done };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      await ctx.mcpReq.notify({ method: "notifications/progress", params });
    },
    signal: ctx.mcpReq.signal,
    sample: (input: SampleInput, options?: { maxTokens?: number }) => {
      const params =
        typeof input === "string"
          ? {
              messages: [{ role: "user", content: { type: "text", text: input } }],
              maxTokens: options?.maxTokens ?? 1000,
            }
          : input;
      return ctx.mcpReq.send({ method: "sampling/createMessage", params }, { signal: ctx.mcpReq.signal });
    },
    elicit: (input: ElicitInput) => {
      // Form mode is the default of the protocol; older clients reject an explicit `mode`, newer accept both.
      return ctx.mcpReq.send(
        { method: "elicitation/create", params: input as unknown as Record<string, unknown> },
        { signal: ctx.mcpReq.signal },
      );
    },
    closeStream: () => ctx.http?.closeSSE?.(),
    listRoots: async () => {
      const result = await ctx.mcpReq.send({ method: "roots/list" }, { signal: ctx.mcpReq.signal });
      return result.roots;
    },
    identity: request.identity,
    globalDependencies: request.globalDependencies,
    routerDependencies: request.routerDependencies,
    request,
    sessionId: ctx.sessionId,
    requestId: ctx.mcpReq.id,
    protocolVersion: negotiatedVersion ?? carrier.protocolVersion,
  };
}
