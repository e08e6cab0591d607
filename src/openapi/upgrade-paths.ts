/**
 * What the document says about paths that are not plain routes: a WebSocket
 * route (a GET that upgrades: 101, or 426 to a request that does not ask to)
 * and the MCP endpoint (`/mcp`, Streamable HTTP: JSON-RPC over POST, a server
 * stream over GET, DELETE to end a session; docs/mcp.md).
 */
import type { JsonSchema } from "../args/json-schema.ts";
import { PROBLEM_SCHEMA, PROBLEM_SCHEMA_NAME, problemContent } from "../problem/openapi.ts";
import type { WebSocketRoute } from "../websocket/route.ts";
import { uniqueId } from "./operation-id.ts";
import { routeParameters } from "./parameters.ts";
import type { SchemaRegistry } from "./schema.ts";

interface Context {
  registry: SchemaRegistry;
  problems: boolean;
  /** Headers every answer carries. */
  headers: Record<string, unknown>;
}

const text = (description: string) => ({ description, schema: { type: "string" } });

function errors(context: Context): Record<string, unknown> {
  return context.problems
    ? problemContent(context.registry.fixed(PROBLEM_SCHEMA_NAME, PROBLEM_SCHEMA))
    : { "text/plain": { schema: { type: "string" } } };
}

function withHeaders(responses: Record<string, Record<string, unknown>>, context: Context) {
  if (Object.keys(context.headers).length === 0) return responses;
  for (const response of Object.values(responses)) {
    response.headers = { ...context.headers, ...(response.headers ?? {}) };
  }
  return responses;
}

/** A WebSocket route as the GET that opens it. */
export function socketOperation(
  socket: WebSocketRoute,
  context: Context & { operationId: string; tags: string[] },
): Record<string, unknown> {
  const operation: Record<string, unknown> = {};
  if (context.tags.length > 0) operation.tags = context.tags;
  operation.summary = `WebSocket ${socket.path}`;
  operation.description =
    "Opens a WebSocket (RFC 6455): send `Connection: Upgrade`, `Upgrade: websocket` and the " +
    "`Sec-WebSocket-*` headers; messages then flow both ways (docs/websockets.md).";
  operation.operationId = context.operationId;
  const parameters = routeParameters(socket.path, socket.options.args);
  if (parameters.length > 0) operation.parameters = parameters;
  const responses: Record<string, Record<string, unknown>> = {
    "101": {
      description: "Switching Protocols: the connection is now a WebSocket",
      headers: {
        Upgrade: text("`websocket`"),
        Connection: text("`Upgrade`"),
        "Sec-WebSocket-Accept": text("The handshake's answer to Sec-WebSocket-Key"),
      },
    },
    "400": {
      description: "Bad request: a malformed target or an invalid argument",
      content: errors(context),
    },
    "426": {
      description: "Upgrade Required: this path speaks WebSocket only",
      headers: { Upgrade: text("`websocket`") },
      content: errors(context),
    },
    "500": { description: "Internal Server Error", content: errors(context) },
  };
  if (socket.options.authRequired === true) {
    responses["401"] = {
      description: "Not authenticated",
      headers: { "WWW-Authenticate": text("The authentication scheme to use") },
      content: errors(context),
    };
  }
  operation.responses = withHeaders(responses, context);
  return operation;
}

const JSON_RPC: JsonSchema = {
  description: "A JSON-RPC 2.0 message (or a batch) of the Model Context Protocol.",
  anyOf: [
    { type: "object", properties: { jsonrpc: { const: "2.0" } }, required: ["jsonrpc"] },
    { type: "array" },
  ],
};

const JSON_RPC_ERROR: JsonSchema = {
  type: "object",
  description: "A JSON-RPC 2.0 error (the MCP SDK's own answers: no session, a bad message).",
  properties: {
    jsonrpc: { const: "2.0" },
    id: { anyOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] },
    error: {
      type: "object",
      properties: { code: { type: "integer" }, message: { type: "string" } },
      required: ["code", "message"],
    },
  },
  required: ["jsonrpc", "error"],
};

/** An MCP error: the SDK's JSON-RPC error, or the app's error body (the gate's 401, a 500). */
function mcpErrors(context: Context): Record<string, unknown> {
  return { "application/json": { schema: JSON_RPC_ERROR }, ...errors(context) };
}

/** `/mcp`: the Model Context Protocol's Streamable HTTP endpoint. */
export function mcpPathItem(
  context: Context & { usedIds: Set<string>; tag: string },
): Record<string, unknown> {
  const session = {
    name: "Mcp-Session-Id",
    in: "header",
    description: "The session, as `initialize` answered it (absent on `initialize`).",
    schema: { type: "string" },
  };
  const common = (): Record<string, Record<string, unknown>> => ({
    "400": {
      description: "Bad request: not a valid JSON-RPC message, or no session",
      content: mcpErrors(context),
    },
    "401": {
      description: "Not authenticated (when the endpoint or a tool requires it)",
      headers: { "WWW-Authenticate": text("The authentication scheme, with the resource metadata") },
      content: mcpErrors(context),
    },
    "404": {
      description: "No such session (it ended or belongs to another client)",
      content: mcpErrors(context),
    },
    "500": { description: "Internal Server Error", content: mcpErrors(context) },
  });
  const operation = (
    method: string,
    extra: Record<string, unknown>,
    responses: Record<string, Record<string, unknown>>,
  ) => ({
    tags: [context.tag],
    operationId: uniqueId(method, "/mcp", context.usedIds),
    parameters: [session],
    ...extra,
    responses: withHeaders({ ...responses, ...common() }, context),
  });
  const sessionHeader = { "Mcp-Session-Id": text("The session (answer to `initialize`)") };
  return {
    post: operation(
      "POST",
      {
        summary: "Send an MCP message",
        description:
          "JSON-RPC over Streamable HTTP (docs/mcp.md). Send `Accept: application/json, text/event-stream`.",
        requestBody: { required: true, content: { "application/json": { schema: JSON_RPC } } },
      },
      {
        "200": {
          description: "The answer: one JSON-RPC response, or a stream of messages",
          headers: sessionHeader,
          content: {
            "application/json": { schema: JSON_RPC },
            "text/event-stream": { schema: { type: "string" } },
          },
        },
        "202": { description: "Accepted: a notification or a response, nothing to answer" },
        "406": {
          description: "Not Acceptable: `Accept` lacks application/json or text/event-stream",
          content: mcpErrors(context),
        },
        "413": { description: "The message is too large", content: mcpErrors(context) },
        "415": { description: "The body is not application/json", content: mcpErrors(context) },
      },
    ),
    get: operation(
      "GET",
      { summary: "Open the server's message stream", description: "Server-sent events for the session." },
      {
        "200": {
          description: "The stream",
          content: { "text/event-stream": { schema: { type: "string" } } },
        },
        "405": {
          description: "This server offers no stream here",
          headers: { Allow: text("The methods of /mcp") },
        },
        "406": {
          description: "Not Acceptable: send `Accept: text/event-stream`",
          content: mcpErrors(context),
        },
      },
    ),
    delete: operation(
      "DELETE",
      { summary: "End the session" },
      {
        "200": { description: "The session ended" },
        "204": { description: "The session ended" },
        "405": {
          description: "Sessions cannot be ended by the client here",
          headers: { Allow: text("The methods of /mcp") },
        },
      },
    ),
  };
}
