/**
 * The MCP methods: each takes the request's params and returns the result
 * object, or throws `RpcError` for a JSON-RPC error. Results never contain
 * `null` (the SDK's schemas reject it): optional fields are left out instead.
 */

import { ArgError, type ArgShape, type ArgSpec } from "../args/t.ts";
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  isObject,
  type JsonObject,
  METHOD_NOT_FOUND,
  RpcError,
} from "./jsonrpc.ts";
import type { PromptArgument, Registry } from "./registry.ts";

/** Protocol revisions this server speaks, newest first; the first is the answer to anything else. */
export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;
export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];

export interface ServerInfo {
  name: string;
  version: string;
  instructions?: string;
}

type Method = (
  params: JsonObject,
  registry: Registry,
  server: ServerInfo,
) => Promise<JsonObject> | JsonObject;

/** A value as tool/resource text: strings as they are, anything else as JSON. */
export function toText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return toText(error) || "error";
}

function requireString(params: JsonObject, key: string): string {
  const value = params[key];
  if (typeof value !== "string" || value === "") {
    throw new RpcError(INVALID_PARAMS, `params.${key} must be a non-empty string`);
  }
  return value;
}

/** The `arguments` member: absent means none; anything but an object is a protocol error. */
function argumentsOf(params: JsonObject): JsonObject {
  const value = params.arguments;
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw new RpcError(INVALID_PARAMS, "params.arguments must be an object");
  return value;
}

/**
 * Converts arguments with their specs (defaults applied). `fromString` says
 * whether string values are query-style text (prompt arguments are always
 * strings on the wire, so `"3"` must reach a `t.int()` and `"[1]"` a `t.list`).
 */
function convert(shape: ArgShape, input: JsonObject, fromString: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(shape) as [string, ArgSpec<unknown>][]) {
    const raw = input[name];
    const value =
      fromString && typeof raw === "string" && spec.kind !== "str"
        ? spec.parse([raw], name)
        : spec.fromJson(raw, name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Required names of an explicit schema that the caller left out (no `args` specs to check with). */
function missingRequired(required: readonly string[] | undefined, input: JsonObject): string | undefined {
  return required?.find((name) => input[name] === undefined);
}

function negotiate(requested: unknown): string {
  return typeof requested === "string" &&
    (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}

const initialize: Method = (params, _registry, server) => {
  const result: JsonObject = {
    protocolVersion: negotiate(params.protocolVersion),
    // Always all three: clients hide the lists a server does not advertise.
    capabilities: {
      tools: { listChanged: false },
      resources: { subscribe: false, listChanged: false },
      prompts: { listChanged: false },
    },
    serverInfo: { name: server.name, version: server.version },
  };
  if (server.instructions) result.instructions = server.instructions;
  return result;
};

const listTools: Method = (_params, registry) => ({
  tools: [...registry.tools.values()].map((tool) =>
    tool.description === undefined
      ? { name: tool.name, inputSchema: tool.inputSchema }
      : { name: tool.name, description: tool.description, inputSchema: tool.inputSchema },
  ),
});

function textResult(text: string, isError: boolean): JsonObject {
  return { content: [{ type: "text", text }], isError };
}

const callTool: Method = async (params, registry) => {
  const name = requireString(params, "name");
  const tool = registry.tools.get(name);
  if (tool === undefined) throw new RpcError(INVALID_PARAMS, `unknown tool '${name}'`);
  const input = argumentsOf(params);
  let values: Record<string, unknown>;
  try {
    if (tool.args) values = convert(tool.args, input, false);
    else {
      const missing = missingRequired(tool.inputSchema.required, input);
      if (missing !== undefined) return textResult(`missing required argument '${missing}'`, true);
      values = input;
    }
  } catch (error) {
    // A bad argument is the model's mistake, reported in-band so it can retry (spec: tool execution errors).
    if (error instanceof ArgError) return textResult(error.message, true);
    throw error;
  }
  try {
    return textResult(toText(await tool.fn(values)), false);
  } catch (error) {
    return textResult(errorMessage(error), true);
  }
};

function describe<T extends JsonObject>(
  base: T,
  description: string | undefined,
  mimeType: string | undefined,
): T {
  const out: JsonObject = { ...base };
  if (description !== undefined) out.description = description;
  if (mimeType !== undefined) out.mimeType = mimeType;
  return out as T;
}

const listResources: Method = (_params, registry) => ({
  resources: registry.resources
    .filter((entry) => !entry.template.isTemplate)
    .map((entry) =>
      describe({ uri: entry.template.template, name: entry.name }, entry.description, entry.mimeType),
    ),
});

const listResourceTemplates: Method = (_params, registry) => ({
  resourceTemplates: registry.resources
    .filter((entry) => entry.template.isTemplate)
    .map((entry) =>
      describe({ uriTemplate: entry.template.template, name: entry.name }, entry.description, entry.mimeType),
    ),
});

const readResource: Method = async (params, registry) => {
  const uri = requireString(params, "uri");
  const found = registry.findResource(uri);
  if (found === undefined) throw new RpcError(INVALID_PARAMS, `unknown resource '${uri}'`);
  let value: unknown;
  try {
    value = await found.entry.fn(found.params);
  } catch (error) {
    throw new RpcError(INTERNAL_ERROR, `resource '${uri}' failed: ${errorMessage(error)}`);
  }
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) {
    const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : value;
    const mimeType = found.entry.mimeType ?? "application/octet-stream";
    return { contents: [{ uri, mimeType, blob: Buffer.from(bytes).toString("base64") }] };
  }
  const mimeType = found.entry.mimeType ?? (typeof value === "string" ? "text/plain" : "application/json");
  return { contents: [{ uri, mimeType, text: toText(value) }] };
};

function listedArgument(argument: PromptArgument): JsonObject {
  const out: JsonObject = { name: argument.name };
  if (argument.description !== undefined) out.description = argument.description;
  if (argument.required !== undefined) out.required = argument.required;
  return out;
}

const listPrompts: Method = (_params, registry) => ({
  prompts: [...registry.prompts.values()].map((prompt) => {
    const out: JsonObject = { name: prompt.name, arguments: prompt.arguments.map(listedArgument) };
    if (prompt.description !== undefined) out.description = prompt.description;
    return out;
  }),
});

const ROLES = new Set(["user", "assistant"]);

/** A prompt function's return value as protocol messages: a string is one user message. */
function toMessages(value: unknown, name: string): JsonObject[] {
  if (!Array.isArray(value)) return [{ role: "user", content: { type: "text", text: toText(value) } }];
  return value.map((message, index) => {
    if (!isObject(message) || typeof message.role !== "string" || !ROLES.has(message.role)) {
      throw new RpcError(
        INTERNAL_ERROR,
        `prompt '${name}' returned an invalid message at index ${index} (expected { role: "user" | "assistant", content })`,
      );
    }
    const content = message.content;
    if (isObject(content) && typeof content.type === "string") return { role: message.role, content };
    return { role: message.role, content: { type: "text", text: toText(content) } };
  });
}

const getPrompt: Method = async (params, registry) => {
  const name = requireString(params, "name");
  const prompt = registry.prompts.get(name);
  if (prompt === undefined) throw new RpcError(INVALID_PARAMS, `unknown prompt '${name}'`);
  const input = argumentsOf(params);
  let values: Record<string, unknown>;
  try {
    if (prompt.args) values = convert(prompt.args, input, true);
    else {
      const required = prompt.arguments
        .filter((argument) => argument.required)
        .map((argument) => argument.name);
      const missing = missingRequired(required, input);
      if (missing !== undefined) throw new ArgError(missing, `missing required argument '${missing}'`);
      values = input;
    }
  } catch (error) {
    // prompts/get has no in-band error flag, so a bad argument is an invalid-params error.
    if (error instanceof ArgError) throw new RpcError(INVALID_PARAMS, error.message);
    throw error;
  }
  let value: unknown;
  try {
    value = await prompt.fn(values);
  } catch (error) {
    throw new RpcError(INTERNAL_ERROR, `prompt '${name}' failed: ${errorMessage(error)}`);
  }
  const result: JsonObject = { messages: toMessages(value, name) };
  if (prompt.description !== undefined) result.description = prompt.description;
  return result;
};

const METHODS: Record<string, Method> = {
  initialize,
  ping: () => ({}),
  "tools/list": listTools,
  "tools/call": callTool,
  "resources/list": listResources,
  "resources/templates/list": listResourceTemplates,
  "resources/read": readResource,
  "prompts/list": listPrompts,
  "prompts/get": getPrompt,
  // Accepted so clients that set a level do not fail; this server sends no log notifications.
  "logging/setLevel": () => ({}),
};

/** Runs one request. `params` has already been checked to be an object (or absent). */
export async function runMethod(
  method: string,
  params: unknown,
  registry: Registry,
  server: ServerInfo,
): Promise<JsonObject> {
  const handler = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  if (handler === undefined) throw new RpcError(METHOD_NOT_FOUND, `method not found: ${method}`);
  if (params !== undefined && !isObject(params))
    throw new RpcError(INVALID_PARAMS, "params must be an object");
  return handler(params ?? {}, registry, server);
}
