import { BINARY, JSON_UTF8, TEXT_PLAIN } from "../http/media-type.ts";
import { iterableToStream } from "../stream/iterable-stream.ts";
import { SseBody } from "../stream/sse.ts";
import { Renderable } from "./bodies.ts";
import { isClientData } from "./client-data.ts";
import { copyResponse } from "./copy-response.ts";
import { plainTextResponse } from "./plain-text.ts";
import { BINARY_HEADERS, JSON_HEADERS, Response, textAnswer } from "./response.ts";
import { streamedResponse } from "./streamed.ts";
import { webResponseOf } from "./web-response.ts";

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
 * "Return values"): the route has no after-middleware.
 */
export function toWebResponse(
  value: unknown,
  request: globalThis.Request,
): WebResponse | Promise<WebResponse> {
  // Text first, ahead of the list: the most common value skips the branch on the form.
  if (typeof value === "string") return plainTextResponse(value);
  return convert(value, request, false) as WebResponse | Promise<WebResponse>;
}

/**
 * The webfw `Response` that after-request middlewares receive, made straight
 * from the handler's value: no Web response in between, so nothing is encoded
 * and read back. Bodies built in memory (text, JSON, bytes, dictionaries,
 * `html()`, `json()`) are readable as `description`; everything that streams
 * (`sse()`, streams, generators, files, a Web `Response` the handler
 * returned) is carried unread in `stream`, so it still streams behind CORS
 * and other after-middlewares (issue #14). The one conversion to a Web
 * response is `webResponseOf` (src/response/web-response.ts, what `Response.toWeb()` calls), when
 * the after-middlewares are done.
 */
export function toWebfwResponse(value: unknown, request: globalThis.Request): Response | Promise<Response> {
  // Text first, ahead of the list, as in `toWebResponse`.
  if (typeof value === "string") return textAnswer(value);
  return convert(value, request, true) as Response | Promise<Response>;
}

/**
 * The one conversion of a handler's value (docs/responses.md, "Return values"), to one of the two
 * forms a route chose at start: the Web response Bun sends (`webfw` false), or the webfw
 * `Response` its after-middlewares change. One list of cases, cheapest first: this runs on every
 * request.
 */
function convert(
  value: unknown,
  request: globalThis.Request,
  webfw: boolean,
): WebResponse | Response | Promise<WebResponse | Response> {
  if (typeof value === "string") return webfw ? textAnswer(value) : plainTextResponse(value);
  if (value === undefined || value === null)
    return webfw ? new Response(204) : new globalThis.Response(null, { status: 204 });
  if (typeof value !== "object") return webfw ? jsonWebfw(value, 200) : jsonResponse(value, 200);
  // A plain object (a JSON answer, the most common value after text) is none of the classes below:
  // one prototype read instead of eight `instanceof` walks. Only what a plain object can still be,
  // an iterable or a dictionary response, is looked at.
  if (
    Object.getPrototypeOf(value) === Object.prototype &&
    !(Symbol.asyncIterator in value) &&
    !isGenerator(value)
  ) {
    if (isDictionaryResponse(value))
      return webfw ? dictionaryWebfw(value) : webResponseOf(dictionaryWebfw(value));
    return webfw ? jsonWebfw(value, 200) : jsonResponse(value, 200);
  }
  // A Web response is taken as given: not read, so it may stream.
  if (value instanceof globalThis.Response) return webfw ? Response.fromWebStream(value) : value;
  if (value instanceof Response) return webfw ? value : webResponseOf(value);
  if (value instanceof Renderable) return webfw ? renderableWebfw(value, request) : value.render(request);
  if (Array.isArray(value)) {
    if (isStatusPair(value)) {
      const status = value[1] as number;
      return webfw
        ? withWebfwStatus(toWebfwResponse(value[0], request), status)
        : withStatus(toWebResponse(value[0], request), status);
    }
    return webfw ? jsonWebfw(value, 200) : jsonResponse(value, 200);
  }
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) {
    if (!webfw)
      return new globalThis.Response(value as Uint8Array<ArrayBuffer>, {
        headers: { "content-type": BINARY },
      });
    const bytes = value instanceof Uint8Array ? value : new Uint8Array(value);
    return new Response(200, BINARY_HEADERS, bytes);
  }
  if (value instanceof Blob || value instanceof SseBody) {
    const web = value instanceof Blob ? blobResponse(value, request) : value.toResponse(request.signal);
    if (!webfw) return web;
    return web instanceof Promise ? web.then(Response.fromWebStream) : Response.fromWebStream(web);
  }
  if (value instanceof ReadableStream || Symbol.asyncIterator in value || isGenerator(value)) {
    const stream =
      value instanceof ReadableStream
        ? (value as ReadableStream<Uint8Array>)
        : iterableToStream(value as AsyncIterable<unknown>, request.signal);
    return webfw ? streamWebfw(stream) : streamedResponse(stream, { headers: { "content-type": BINARY } });
  }
  if (isDictionaryResponse(value))
    return webfw ? dictionaryWebfw(value) : webResponseOf(dictionaryWebfw(value));
  return webfw ? jsonWebfw(value, 200) : jsonResponse(value, 200);
}

function jsonWebfw(value: unknown, status: number): Response {
  return new Response(status, JSON_HEADERS, JSON.stringify(value));
}

function streamWebfw(stream: ReadableStream<Uint8Array>): Response {
  const response = new Response(200, BINARY_HEADERS);
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
  // The file module loads on the first file sent (start-up, docs/performance.md).
  if (typeof name === "string" && name !== "")
    return import("../files/serve-file.ts").then((files) =>
      files.fileResponse(name, request, { contentType: blob.type || undefined }),
    );
  return new globalThis.Response(blob);
}
