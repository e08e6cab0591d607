/**
 * A route's HTTP response as an MCP tool result (`CallToolResult`):
 * 2xx JSON → `structuredContent` plus the JSON as text; 2xx text → text;
 * images and audio → image/audio content; any other body → an embedded
 * resource (base64 `blob`); 3xx/4xx/5xx → `isError: true` with the status and
 * the route's message, which the model reads to correct its call.
 */
import { STATUS_CODES } from "node:http";
import { isJsonMediaType, mediaType } from "../../http/media-type.ts";
import { contentTypeOf } from "../../response/plain-text.ts";
import { readAtMost } from "../../stream/read-at-most.ts";

export type ToolContent =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource"; resource: { uri: string; mimeType: string; blob: string } };

export interface ToolResult {
  content: ToolContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export function errorResult(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** Bodies read as text: `text/*`, XML, JavaScript, forms; everything else is bytes. */
function isText(type: string): boolean {
  return (
    type.startsWith("text/") ||
    type.endsWith("+xml") ||
    type === "application/xml" ||
    type === "application/javascript" ||
    type === "application/x-www-form-urlencoded"
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export interface ResultOptions {
  /** Largest body turned into a result. */
  maxBytes: number;
  /** The URI an embedded resource is given: the route's URL for this call. */
  uri: string;
  /** Whether `structuredContent` is wrapped as `{ result }` (from the output schema); null: decided by the value. */
  wrapped: boolean | null;
}

export async function toToolResult(
  response: globalThis.Response,
  options: ResultOptions,
): Promise<ToolResult> {
  const type = mediaType(contentTypeOf(response));
  const status = response.status;
  const reason = STATUS_CODES[status] ?? "";
  if (type === "text/event-stream") {
    // An event stream may never end; a tool call needs one answer.
    await response.body?.cancel().catch(() => undefined);
    return errorResult(
      `${status} ${reason}: the route answers with an event stream, which a tool call cannot return`,
    );
  }
  const bytes = await readAtMost(response.body, options.maxBytes);
  if (bytes === null) return errorResult(`the route's response is larger than ${options.maxBytes} bytes`);
  const text = (): string => new TextDecoder().decode(bytes);

  if (status >= 300) {
    const location = response.headers.get("location");
    const message = status < 400 && location !== null ? `redirects to ${location}` : text();
    return errorResult(message === "" ? `${status} ${reason}` : `${status} ${reason}: ${message}`);
  }
  if (bytes.byteLength === 0) return { content: [] };
  if (isJsonMediaType(type)) {
    let value: unknown;
    try {
      value = JSON.parse(text());
    } catch {
      return { content: [{ type: "text", text: text() }] };
    }
    const wrap = options.wrapped === true || !isPlainObject(value);
    const structured = wrap ? { result: value } : (value as Record<string, unknown>);
    return { content: [{ type: "text", text: text() }], structuredContent: structured };
  }
  if (type === "" || isText(type)) return { content: [{ type: "text", text: text() }] };
  const data = Buffer.from(bytes).toString("base64");
  if (type.startsWith("image/")) return { content: [{ type: "image", data, mimeType: type }] };
  if (type.startsWith("audio/")) return { content: [{ type: "audio", data, mimeType: type }] };
  return { content: [{ type: "resource", resource: { uri: options.uri, mimeType: type, blob: data } }] };
}
