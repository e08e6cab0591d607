/**
 * The Web response Bun sends for a webfw `Response` (src/response/response.ts): its public
 * `toWeb()`, and the dispatcher's last step once the after-middlewares are done
 * (src/serve/dispatch.ts, docs/architecture.md "The files a request crosses"). It reads the
 * response's fields only, so sending one enters this file and no other.
 */
import type { Headers } from "../http/headers.ts";
import { BINARY, TEXT_PLAIN } from "../http/media-type.ts";
import { markImpliedText } from "./plain-text.ts";
import { markStreamed } from "./streamed.ts";

/** What a webfw `Response` is made of (its public fields and the internal ones this file reads). */
export interface ResponseParts {
  readonly statusCode: number;
  readonly description: string | Uint8Array;
  readonly stream: ReadableStream<Uint8Array> | Blob | null;
  readonly bodyAbsent: boolean;
  readonly impliedText: boolean;
  readonly headersInit: Readonly<Record<string, string>> | null;
  readonly headersValue: Headers | null;
  /** Handed out once: a Web response's body can be read once (a second `toWeb()` makes another). */
  web: globalThis.Response | null;
  readonly webStatus: number;
  readonly webBody: string | Uint8Array;
}

/** A status whose response has no body (RFC 9110 §15: 1xx, 204, 304). */
export function isNoBodyStatus(status: number): boolean {
  return status === 204 || status === 304 || status < 200;
}

/**
 * The Web response of `response`. A handler's text whose headers an after-middleware read is
 * already one (`Response.web`, whose own headers the middleware wrote into): sent as it is while
 * its status and body are the ones it was made with. Otherwise made now: bare (with `{ status }`
 * only when it is not 200), each header then written into its own headers, as Bun's conversion
 * of a header object in the response init costs more than the response itself
 * (docs/performance.md, "The middleware path"); after `raw` or a cookie, from the Web headers.
 */
export function webResponseOf(response: ResponseParts): globalThis.Response {
  const web = response.web;
  if (
    web !== null &&
    response.statusCode === response.webStatus &&
    response.description === response.webBody &&
    response.stream === null
  ) {
    response.web = null;
    return web;
  }
  const noBody =
    isNoBodyStatus(response.statusCode) ||
    (response.bodyAbsent && response.description === "" && response.stream === null);
  const body = noBody ? null : ((response.stream ?? response.description) as BodyInit);
  const headers = response.headersValue;
  if (headers === null) return withHeaderObject(response, body, response.headersInit, response.impliedText);
  if (headers.plain !== null) return withHeaderObject(response, body, headers.plain, headers.impliedText);
  // The Web headers, the implied type written (`Headers.raw`).
  const raw = headers.raw;
  if (body !== null && response.stream === null && !raw.has("content-type")) {
    raw.set("content-type", typeof body === "string" ? TEXT_PLAIN : BINARY);
  }
  return streamedIf(
    response,
    new globalThis.Response(body, { status: response.statusCode, headers: raw }),
    body,
  );
}

/**
 * The Web response with the headers of a header object, each appended as the response init would
 * (a name given twice in two spellings joins its values) but the type, which is set. A string
 * body with the implied type, or with none, gets Bun's default: implied and marked rather than
 * written (src/response/plain-text.ts); bytes with none get `application/octet-stream`.
 */
function withHeaderObject(
  response: ResponseParts,
  body: BodyInit | null,
  init: Readonly<Record<string, string>> | null,
  impliedText: boolean,
): globalThis.Response {
  const status = response.statusCode;
  const web = status === 200 ? new globalThis.Response(body) : new globalThis.Response(body, { status });
  let typed = false;
  if (init !== null) {
    for (const name in init) {
      const value = init[name] as string;
      if (name.length === 12 && name.toLowerCase() === "content-type") {
        web.headers.set(name, value);
        typed = true;
      } else web.headers.append(name, value);
    }
  }
  if (impliedText) {
    if (typeof body === "string") return markImpliedText(web);
    // The body was replaced by bytes or a stream, or dropped: the type stays the text's.
    web.headers.set("content-type", TEXT_PLAIN);
  } else if (!typed && body !== null && response.stream === null) {
    if (typeof body === "string") return markImpliedText(web);
    web.headers.set("content-type", BINARY);
  }
  return streamedIf(response, web, body);
}

/** Marks a Web response that carries the response's stream (src/response/streamed.ts). */
function streamedIf(
  response: ResponseParts,
  web: globalThis.Response,
  body: BodyInit | null,
): globalThis.Response {
  return response.stream !== null && body !== null ? markStreamed(web) : web;
}
