import { fileResponse } from "../files/serve-file.ts";
import { BINARY, JSON_UTF8, TEXT_PLAIN } from "../http/media-type.ts";
import { iterableToStream } from "../stream/iterable-stream.ts";
import { SseBody } from "../stream/sse.ts";
import { Renderable } from "./bodies.ts";
import { isClientData } from "./client-data.ts";
import { copyResponse, plainTextResponse } from "./plain-text.ts";
import { Response } from "./response.ts";
import { streamedResponse } from "./streamed.ts";

type WebResponse = globalThis.Response;

// Text and JSON answers are made without headers (Bun adds the type): src/http/media-type.ts.
const DICT_KEYS = new Set(["statusCode", "description", "type", "headers"]);
const DICT_TYPES: Record<string, string> = {
  text: TEXT_PLAIN,
  json: JSON_UTF8,
  html: "text/html; charset=utf-8",
  binary: BINARY,
};

/**
 * Turns whatever a handler returned into the Web response Bun sends (docs/responses.md,
 * "Return values"). Cheapest cases first: this runs on every request.
 */
export function toWebResponse(
  value: unknown,
  request: globalThis.Request,
): WebResponse | Promise<WebResponse> {
  if (typeof value === "string") return plainTextResponse(value);
  if (value === undefined || value === null) return new globalThis.Response(null, { status: 204 });
  if (typeof value !== "object") return jsonResponse(value, 200);
  if (value instanceof globalThis.Response) return value;
  if (value instanceof Response) return value.toWeb();
  if (value instanceof Renderable) return value.render(request);
  if (Array.isArray(value)) {
    if (isStatusPair(value)) return withStatus(toWebResponse(value[0], request), value[1] as number);
    return jsonResponse(value, 200);
  }
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) {
    return new globalThis.Response(value as Uint8Array<ArrayBuffer>, { headers: { "content-type": BINARY } });
  }
  if (value instanceof Blob) return blobResponse(value, request);
  if (value instanceof ReadableStream)
    return streamedResponse(value, { headers: { "content-type": BINARY } });
  if (value instanceof SseBody) return value.toResponse(request.signal);
  if (Symbol.asyncIterator in value || isGenerator(value)) {
    return streamableResponse(value as AsyncIterable<unknown>, request);
  }
  if (isDictionaryResponse(value)) return dictionaryResponse(value);
  return jsonResponse(value, 200);
}

/**
 * The webfw `Response` that after-request middlewares receive, made straight
 * from the handler's value: no Web response in between, so nothing is encoded
 * and read back. Bodies built in memory (text, JSON, bytes, dictionaries,
 * `html()`, `json()`) are readable as `description`; everything that streams
 * (`sse()`, streams, generators, files, a Web `Response` the handler
 * returned) is carried unread in `stream`, so it still streams behind CORS
 * and other after-middlewares (issue #14). The one conversion to a Web
 * response is `Response.toWeb()`, when the after-middlewares are done.
 */
export function toWebfwResponse(value: unknown, request: globalThis.Request): Response | Promise<Response> {
  if (typeof value === "string") return new Response(200, { "content-type": TEXT_PLAIN }, value);
  if (value === undefined || value === null) return new Response(204);
  if (typeof value !== "object") return jsonWebfw(value, 200);
  if (value instanceof Response) return value;
  // Taken as given: not read, so it may stream.
  if (value instanceof globalThis.Response) return Response.fromWebStream(value);
  if (value instanceof Renderable) return renderableWebfw(value, request);
  if (Array.isArray(value)) {
    if (isStatusPair(value)) return withWebfwStatus(toWebfwResponse(value[0], request), value[1] as number);
    return jsonWebfw(value, 200);
  }
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) {
    const bytes = value instanceof Uint8Array ? value : new Uint8Array(value);
    return new Response(200, { "content-type": BINARY }, bytes);
  }
  if (value instanceof Blob || value instanceof SseBody) {
    const web = toWebResponse(value, request);
    return web instanceof Promise ? web.then(Response.fromWebStream) : Response.fromWebStream(web);
  }
  if (value instanceof ReadableStream) return streamWebfw(value as ReadableStream<Uint8Array>);
  if (Symbol.asyncIterator in value || isGenerator(value)) {
    return streamWebfw(iterableToStream(value as AsyncIterable<unknown>, request.signal));
  }
  if (isDictionaryResponse(value)) return dictionaryWebfw(value);
  return jsonWebfw(value, 200);
}

function jsonWebfw(value: unknown, status: number): Response {
  return new Response(status, { "content-type": JSON_UTF8 }, JSON.stringify(value));
}

function streamWebfw(stream: ReadableStream<Uint8Array>): Response {
  const response = new Response(200, { "content-type": BINARY });
  response.stream = stream;
  return response;
}

/**
 * `html()` and `json()` hand over their text (`Renderable.inMemoryBody`); a file is rendered and
 * carried as a stream; another Renderable of the application is rendered and, being in memory,
 * read once so that `description` is usable.
 */
function renderableWebfw(value: Renderable, request: globalThis.Request): Response | Promise<Response> {
  const body = value.inMemoryBody();
  if (body !== null) return new Response(body.status, { "content-type": body.contentType }, body.text);
  const wrap = value.inMemory ? Response.fromWeb : Response.fromWebStream;
  const web = value.render(request);
  return web instanceof Promise ? web.then(wrap) : wrap(web);
}

function withWebfwStatus(
  response: Response | Promise<Response>,
  status: number,
): Response | Promise<Response> {
  if (response instanceof Promise) return response.then((r) => withWebfwStatus(r, status) as Response);
  response.statusCode = status;
  if (status === 204 || status === 304 || status < 200) {
    response.description = "";
    response.stream = null;
  }
  return response;
}

/** `Response.json` sets its type natively, without a Headers object (src/http/media-type.ts). */
function jsonResponse(value: unknown, status: number): WebResponse {
  return status === 200 ? globalThis.Response.json(value) : globalThis.Response.json(value, { status });
}

/** `[body, status]`: exactly two items, the second an integer status code. */
export function isStatusPair(value: unknown[]): boolean {
  const status = value[1];
  return (
    value.length === 2 &&
    typeof status === "number" &&
    Number.isInteger(status) &&
    status >= 100 &&
    status <= 599
  );
}

function withStatus(
  response: WebResponse | Promise<WebResponse>,
  status: number,
): WebResponse | Promise<WebResponse> {
  if (response instanceof Promise) return response.then((r) => withStatus(r, status) as WebResponse);
  const noBody = status === 204 || status === 304 || status < 200;
  return copyResponse(response, { status, body: !noBody });
}

interface DictionaryResponse {
  statusCode: number;
  description: string | Uint8Array;
  type?: string;
  headers?: Record<string, string>;
}

export function isDictionaryResponse(value: object): value is DictionaryResponse {
  if (!("statusCode" in value) || !("description" in value)) return false;
  // Parsed from the request: the client does not choose the response (src/response/client-data.ts).
  if (isClientData(value)) return false;
  for (const key of Object.keys(value)) if (!DICT_KEYS.has(key)) return false;
  const dict = value as Record<string, unknown>;
  return (
    typeof dict.statusCode === "number" &&
    (typeof dict.description === "string" || dict.description instanceof Uint8Array) &&
    (dict.type === undefined || typeof dict.type === "string") &&
    (dict.headers === undefined || (typeof dict.headers === "object" && dict.headers !== null))
  );
}

function dictionaryResponse(dict: DictionaryResponse): WebResponse {
  return dictionaryWebfw(dict).toWeb();
}

function dictionaryWebfw(dict: DictionaryResponse): Response {
  const response = new Response(dict.statusCode, dict.headers ?? {}, dict.description);
  if (!response.headers.has("content-type")) {
    const type = dict.type ? DICT_TYPES[dict.type.toLowerCase()] : undefined;
    response.headers.set("content-type", type ?? TEXT_PLAIN);
  }
  if (dict.type?.toLowerCase() === "json" && typeof dict.description !== "string") {
    response.description = new TextDecoder().decode(dict.description);
  }
  return response;
}

/** A (sync) generator object; other iterables (Map, Set) are not streams. */
function isGenerator(value: object): value is Iterable<unknown> {
  return Symbol.iterator in value && typeof (value as { next?: unknown }).next === "function";
}

/** `Bun.file(...)` gets the same treatment as `serveFile` (404, ranges, revalidation); other blobs are sent as they are. */
function blobResponse(blob: Blob, request: globalThis.Request): WebResponse | Promise<WebResponse> {
  const name = (blob as { name?: unknown }).name;
  if (typeof name === "string" && name !== "")
    return fileResponse(name, request, { contentType: blob.type || undefined });
  return new globalThis.Response(blob);
}

/** Async generators stream: strings as UTF-8, bytes as is (see `iterableToStream`). */
function streamableResponse(
  source: AsyncIterable<unknown> | Iterable<unknown>,
  request: globalThis.Request,
): WebResponse {
  return streamedResponse(iterableToStream(source, request.signal), { headers: { "content-type": BINARY } });
}
