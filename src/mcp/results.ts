/**
 * Turning what a user function returned into protocol results: tool results
 * (text, content arrays, full results, structured content), resource
 * contents and prompt messages. Results never contain `null`: optional
 * fields are left out (the SDK clients' schemas reject `null`).
 */

import type { JsonSchema } from "../args/json-schema.ts";
import type { CallToolResult, ContentBlock, PromptMessage } from "./types.ts";

type JsonObject = Record<string, unknown>;

/** The content types a tool result may carry (MCP 2025-11-25). */
const CONTENT_TYPES = new Set(["text", "image", "audio", "resource_link", "resource"]);

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value as text: strings as they are, anything else as JSON. */
export function toText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return toText(error) || "error";
}

function isContentBlock(value: unknown): value is ContentBlock {
  return isObject(value) && typeof value.type === "string" && CONTENT_TYPES.has(value.type);
}

/** A non-empty array made only of content blocks: the tool returned its content directly. */
function isContentArray(value: unknown): value is ContentBlock[] {
  return Array.isArray(value) && value.length > 0 && value.every(isContentBlock);
}

/** An object shaped like a whole result: a `content` array of blocks, or `structuredContent`. */
function isFullResult(value: unknown): value is CallToolResult {
  if (!isObject(value)) return false;
  if (Array.isArray(value.content)) return value.content.every(isContentBlock);
  return isObject(value.structuredContent) && value.content === undefined;
}

export function textResult(text: string, isError: boolean): CallToolResult {
  return { content: [{ type: "text", text }], isError };
}

/**
 * A tool's return value as its result. With an `outputSchema`, a plain object
 * is the structured content and its JSON is the text (the spec asks for both,
 * for clients that read only `content`).
 */
export function toolResult(value: unknown, outputSchema: JsonSchema | undefined): CallToolResult {
  if (isFullResult(value)) {
    const result: CallToolResult = { ...value, content: value.content ?? [] };
    if (result.content.length === 0 && result.structuredContent !== undefined) {
      result.content = [{ type: "text", text: toText(result.structuredContent) }];
    }
    if (result.isError === undefined) result.isError = false;
    return result;
  }
  if (isContentArray(value)) return { content: value, isError: false };
  if (outputSchema !== undefined && isObject(value)) {
    return { content: [{ type: "text", text: toText(value) }], structuredContent: value, isError: false };
  }
  return textResult(toText(value), false);
}

/** A prompt function's return value as protocol messages: a string is one user message. */
export function promptMessages(value: unknown, name: string): PromptMessage[] {
  if (!Array.isArray(value)) return [{ role: "user", content: { type: "text", text: toText(value) } }];
  return value.map((message, index) => {
    if (!isObject(message) || (message.role !== "user" && message.role !== "assistant")) {
      throw new Error(
        `prompt '${name}' returned an invalid message at index ${index} (expected { role: "user" | "assistant", content })`,
      );
    }
    const content = message.content;
    if (isContentBlock(content)) return { role: message.role, content };
    return { role: message.role, content: { type: "text", text: toText(content) } };
  });
}

export interface ResourceContent {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  _meta?: JsonObject;
}

/**
 * A resource function's return value as `contents`: text, bytes (a base64
 * `blob`), one `{ text | blob }` item, or a list of them (a resource may have
 * several parts, each with its own URI).
 */
export function resourceContents(
  value: unknown,
  uri: string,
  mimeType: string | undefined,
): ResourceContent[] {
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) {
    const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : value;
    return [
      { uri, mimeType: mimeType ?? "application/octet-stream", blob: Buffer.from(bytes).toString("base64") },
    ];
  }
  const item = (part: unknown): ResourceContent | undefined => {
    if (!isObject(part) || (typeof part.text !== "string" && typeof part.blob !== "string")) return undefined;
    const out: ResourceContent = { uri: typeof part.uri === "string" ? part.uri : uri };
    const type = typeof part.mimeType === "string" ? part.mimeType : mimeType;
    if (type !== undefined) out.mimeType = type;
    if (typeof part.text === "string") out.text = part.text;
    else out.blob = part.blob as string;
    if (isObject(part._meta)) out._meta = part._meta;
    return out;
  };
  const single = item(value);
  if (single) return [single];
  if (Array.isArray(value) && value.length > 0) {
    const parts = value.map(item);
    if (parts.every((part) => part !== undefined)) return parts as ResourceContent[];
  }
  const type = mimeType ?? (typeof value === "string" ? "text/plain" : "application/json");
  return [{ uri, mimeType: type, text: toText(value) }];
}
