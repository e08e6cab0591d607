/**
 * One protocol server (the official SDK's low-level `Server`) for one MCP
 * session, answering from the app's registry. The SDK does the protocol
 * (initialize and version negotiation, ping, logging levels, progress,
 * cancellation, server-to-client requests, JSON-RPC framing); this file says
 * what each method answers. Loaded only with the engine (src/mcp/engine.ts).
 */

import {
  type CallToolResult,
  type JSONRPCRequest,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
  type Result,
  Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { ArgError, type ArgShape, type ArgSpec } from "../args/t.ts";
import { Request } from "../http/request.ts";
import type { TracingHooks } from "../observability/hooks.ts";
import { buildContext, type CallCarrier, carrierOf } from "./context.ts";
import { BadCursorError, paginate } from "./pagination.ts";
import { isBareList, type McpCatalog, type ResourceEntry } from "./registry.ts";
import {
  errorMessage,
  isObject,
  promptMessages,
  resourceContents,
  textResult,
  toolResult,
} from "./results.ts";
import type { McpContext } from "./types.ts";

type JsonObject = Record<string, unknown>;

export interface ServerSettings {
  name: string;
  version: string;
  instructions: string | undefined;
  pageSize: number;
  /** With tracing on: each tool call runs in a span (src/observability/span-hook.ts). */
  tracing?: TracingHooks;
}

/** What the engine keeps per session beside the SDK server. */
export interface SessionState {
  subscriptions: Set<string>;
}

/** Converts arguments with their specs (defaults applied); prompt arguments are strings, converted like query values. */
function convert(shape: ArgShape, input: JsonObject, fromString: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(shape) as [string, ArgSpec<unknown>][]) {
    const raw = input[name];
    if (raw === undefined && isBareList(spec))
      throw new ArgError(name, `missing required argument '${name}'`);
    const value =
      fromString && typeof raw === "string" && spec.kind !== "str"
        ? spec.parse([raw], name)
        : // Tool arguments keep `t` semantics (docs/mcp.md: numeric strings are accepted for ints).
          spec.fromJson(raw, name, true);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function missingRequired(required: readonly string[] | undefined, input: JsonObject): string | undefined {
  return required?.find((name) => input[name] === undefined);
}

function invalidParams(message: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, message);
}

/** Copies only the defined fields: results never carry `null`/`undefined` members. */
/** What resources/list and resources/templates/list both say of a resource. */
function listed(entry: ResourceEntry) {
  return {
    name: entry.name,
    title: entry.title,
    description: entry.description,
    mimeType: entry.mimeType,
    annotations: entry.annotations,
    icons: entry.icons,
    _meta: entry.meta,
  };
}

/** The MCP Apps extension (docs/mcp-apps.md); its identifier is spelled here so that the engine loads none of it. */
const UI_EXTENSION = "io.modelcontextprotocol/ui";

/**
 * Whether the client negotiated MCP Apps: it declared the extension (with our MIME type, when it
 * lists types). Unknown capabilities (stateless mode: no `initialize` on this server) count as yes:
 * `_meta` is ignored by clients that do not know it.
 */
function negotiatedUi(server: Server): boolean {
  const capabilities = server.getClientCapabilities();
  if (capabilities === undefined) return true;
  const ui = (capabilities as { extensions?: Record<string, unknown> }).extensions?.[UI_EXTENSION];
  if (typeof ui !== "object" || ui === null) return false;
  const types = (ui as { mimeTypes?: unknown }).mimeTypes;
  return !Array.isArray(types) || types.includes("text/html;profile=mcp-app");
}

function defined<T extends JsonObject>(value: T): T {
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = item;
  return out as T;
}

function page<T>(items: readonly T[], params: JsonObject | undefined, size: number) {
  try {
    return paginate(items, params?.cursor, size);
  } catch (error) {
    if (error instanceof BadCursorError) throw invalidParams(error.message);
    throw error;
  }
}

/** The issues of a schema validation failure (the SDK throws them as a plain Error with their JSON). */
function validationIssues(error: unknown): string | undefined {
  if (!(error instanceof Error) || error instanceof ProtocolError || !error.message.startsWith("["))
    return undefined;
  try {
    const issues = JSON.parse(error.message) as { path?: unknown[]; message?: string }[];
    if (!Array.isArray(issues)) return undefined;
    return issues
      .map((issue) => `${(issue.path ?? []).join(".") || "request"}: ${issue.message ?? "invalid"}`)
      .join("; ");
  } catch {
    return undefined;
  }
}

/**
 * The SDK's server, with one correction: a request whose params fail the
 * protocol schema (a missing `uri`, a `name` that is not a string) is a
 * client error, -32602 naming the field, not -32603 with a schema dump.
 */
class WebfwServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const inner = super._wrapHandler(method, handler);
    return async (request, ctx) => {
      try {
        return await inner(request, ctx);
      } catch (error) {
        const issues = validationIssues(error);
        if (issues !== undefined) throw invalidParams(`invalid params: ${issues}`);
        throw error;
      }
    };
  }
}

export function createSessionServer(
  registry: McpCatalog,
  settings: ServerSettings,
  state: SessionState,
): Server {
  // An app with tool UIs says it speaks MCP Apps (SEP-1724 extensions); others' capabilities are unchanged.
  let withUi = false;
  // A tool with `ui`/`visibility` lists a `_meta` of its own beside the plain one (src/mcp/registry.ts).
  for (const tool of registry.tools.values()) withUi ||= tool.meta !== tool.plainMeta;
  const server = new WebfwServer(
    { name: settings.name, version: settings.version },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
        ...(withUi ? { extensions: { [UI_EXTENSION]: {} } } : {}),
      },
      ...(settings.instructions === undefined ? {} : { instructions: settings.instructions }),
    },
  );

  const contextOf = (ctx: ServerContext): McpContext => {
    const carrier: CallCarrier = carrierOf(ctx) ?? {
      // Only an in-process transport gets here: give functions a request all the same.
      request: new Request(ctx.http?.req ?? new globalThis.Request("http://localhost/mcp"), {}),
      protocolVersion: undefined,
    };
    return buildContext(ctx, carrier, server.getNegotiatedProtocolVersion());
  };

  server.setRequestHandler("tools/list", (request) => {
    // A client without MCP Apps gets tools as if they had no UI: no `_meta.ui`, no UI-only tools.
    const ui = negotiatedUi(server);
    const all = [...registry.tools.values()];
    const { page: tools, nextCursor } = page(
      ui ? all : all.filter((tool) => !tool.appOnly),
      request.params,
      settings.pageSize,
    );
    return defined({
      tools: tools.map((tool) =>
        defined({
          name: tool.name,
          title: tool.title,
          description: tool.description,
          inputSchema: tool.inputSchema as { type: "object" },
          outputSchema: tool.outputSchema as { type: "object" } | undefined,
          annotations: tool.annotations,
          icons: tool.icons,
          _meta: ui ? tool.meta : tool.plainMeta,
        }),
      ),
      nextCursor,
    });
  });

  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult> => {
    const { name } = request.params;
    const tool = registry.tools.get(name);
    if (tool === undefined) throw invalidParams(`unknown tool '${name}'`);
    const tracing = settings.tracing;
    if (tracing === undefined) return callTool(tool, request.params.arguments, ctx);
    // Attributes of the OpenTelemetry MCP and GenAI conventions; an `isError` result marks the span.
    const attributes = {
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": name,
      "gen_ai.operation.name": "execute_tool",
    };
    return tracing.inSpan(
      `tools/call ${name}`,
      attributes,
      async (fail) => {
        const result = await callTool(tool, request.params.arguments, ctx);
        if (result.isError) fail("tool_error");
        return result;
      },
      carrierOf(ctx)?.request.context,
    );
  });

  async function callTool(
    tool: NonNullable<ReturnType<typeof registry.tools.get>>,
    args: unknown,
    ctx: ServerContext,
  ): Promise<CallToolResult> {
    const input: JsonObject = isObject(args) ? args : {};
    let values: Record<string, unknown>;
    try {
      if (tool.args) values = convert(tool.args, input, false);
      else {
        const missing = missingRequired(tool.inputSchema.required, input);
        if (missing !== undefined) return textResult(`missing required argument '${missing}'`, true);
        values = input;
      }
    } catch (error) {
      // A bad argument is the model's mistake, reported in-band so it can retry (SEP-1303).
      if (error instanceof ArgError) return textResult(error.message, true);
      throw error;
    }
    try {
      return toolResult(await tool.fn(values, contextOf(ctx) as never), tool.outputSchema);
    } catch (error) {
      return textResult(errorMessage(error), true);
    }
  }

  server.setRequestHandler("resources/list", (request) => {
    const concrete = registry.resources.filter((entry) => !entry.template.isTemplate);
    const { page: resources, nextCursor } = page(concrete, request.params, settings.pageSize);
    return defined({
      resources: resources.map((entry) =>
        defined({ uri: entry.template.template, ...listed(entry), size: entry.size }),
      ),
      nextCursor,
    });
  });

  server.setRequestHandler("resources/templates/list", (request) => {
    const templates = registry.resources.filter((entry) => entry.template.isTemplate);
    const { page: items, nextCursor } = page(templates, request.params, settings.pageSize);
    return defined({
      resourceTemplates: items.map((entry) =>
        defined({ uriTemplate: entry.template.template, ...listed(entry) }),
      ),
      nextCursor,
    });
  });

  server.setRequestHandler("resources/read", async (request, ctx) => {
    const { uri } = request.params;
    const found = registry.findResource(uri);
    if (found === undefined) throw new ResourceNotFoundError(uri, `unknown resource '${uri}'`);
    let value: unknown;
    try {
      value = await found.entry.fn(found.params, contextOf(ctx) as never);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `resource '${uri}' failed: ${errorMessage(error)}`,
      );
    }
    return { contents: resourceContents(value, uri, found.entry.mimeType) } as ReadResourceResult;
  });

  server.setRequestHandler("resources/subscribe", (request) => {
    state.subscriptions.add(request.params.uri);
    return {};
  });

  server.setRequestHandler("resources/unsubscribe", (request) => {
    state.subscriptions.delete(request.params.uri);
    return {};
  });

  server.setRequestHandler("prompts/list", (request) => {
    const { page: prompts, nextCursor } = page(
      [...registry.prompts.values()],
      request.params,
      settings.pageSize,
    );
    return defined({
      prompts: prompts.map((prompt) =>
        defined({
          name: prompt.name,
          title: prompt.title,
          description: prompt.description,
          icons: prompt.icons,
          arguments: prompt.arguments.map((argument) => defined({ ...argument })),
        }),
      ),
      nextCursor,
    });
  });

  server.setRequestHandler("prompts/get", async (request, ctx) => {
    const { name } = request.params;
    const prompt = registry.prompts.get(name);
    if (prompt === undefined) throw invalidParams(`unknown prompt '${name}'`);
    const input: JsonObject = isObject(request.params.arguments) ? request.params.arguments : {};
    let values: Record<string, unknown>;
    try {
      if (prompt.args) values = convert(prompt.args, input, true);
      else {
        const required = prompt.arguments.filter((item) => item.required).map((item) => item.name);
        const missing = missingRequired(required, input);
        if (missing !== undefined) throw new ArgError(missing, `missing required argument '${missing}'`);
        values = input;
      }
    } catch (error) {
      // prompts/get has no in-band error flag, so a bad argument is an invalid-params error.
      if (error instanceof ArgError) throw invalidParams(error.message);
      throw error;
    }
    let value: unknown;
    try {
      value = await prompt.fn(values, contextOf(ctx) as never);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `prompt '${name}' failed: ${errorMessage(error)}`,
      );
    }
    try {
      return defined({ description: prompt.description, messages: promptMessages(value, name) });
    } catch (error) {
      throw new ProtocolError(ProtocolErrorCode.InternalError, errorMessage(error));
    }
  });

  server.setRequestHandler("completion/complete", async (request) => {
    const { ref, argument, context } = request.params;
    let complete: ((value: string, context: Record<string, string>) => unknown) | undefined;
    if (ref.type === "ref/prompt") {
      const prompt = registry.prompts.get(ref.name);
      if (prompt === undefined) throw invalidParams(`unknown prompt '${ref.name}'`);
      complete = prompt.complete?.[argument.name];
    } else {
      const entry = registry.resources.find((item) => item.template.template === ref.uri);
      if (entry === undefined) throw invalidParams(`unknown resource template '${ref.uri}'`);
      complete = entry.complete?.[argument.name];
    }
    // Nothing to suggest is an empty list, not an error: the client just shows no completions.
    if (complete === undefined) return { completion: { values: [], hasMore: false } };
    let suggested: unknown;
    try {
      suggested = await complete(argument.value, context?.arguments ?? {});
    } catch (error) {
      throw new ProtocolError(ProtocolErrorCode.InternalError, `completion failed: ${errorMessage(error)}`);
    }
    const all = Array.isArray(suggested) ? suggested.map(String) : [];
    // The spec caps one answer at 100 values; `total` and `hasMore` tell the client there are more.
    return { completion: { values: all.slice(0, 100), total: all.length, hasMore: all.length > 100 } };
  });

  return server;
}
