import { type CookieOptions, serializeCookie } from "../http/cookies.ts";
import { Headers, isPlainHeaders, plainHeaders } from "../http/headers.ts";
import { BINARY, JSON_UTF8 } from "../http/media-type.ts";
import { isToken } from "../http/token.ts";
import { contentTypeOf, markImpliedText } from "./plain-text.ts";
import { isNoBodyStatus, webResponseOf } from "./web-response.ts";

const TEXTUAL = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)|[^;]*\+(json|xml))/i;

/**
 * The spec's `Response(status_code, headers, description)`. After-request
 * middlewares receive one of these, whatever the handler returned.
 */
export class Response {
  statusCode: number;
  /** Text or bytes of the body. Empty for streamed bodies (files, streams), which live in `stream`. */
  description: string | Uint8Array;
  /** A body that is not held in memory (a file, a stream); used when set, instead of `description`. */
  stream: ReadableStream<Uint8Array> | Blob | null = null;
  /** @internal The `Headers`, once something read `headers` (src/response/web-response.ts reads it). */
  headersValue: Headers | null;
  /**
   * @internal The handler's own header object, until something reads `headers`: a response
   * returned straight to the client then gets its Web headers written once from this object
   * (src/response/web-response.ts), instead of a Headers object here and a copy of it there (two
   * native objects, ~40 % of the JavaScript time of the params benchmark).
   */
  headersInit: Readonly<Record<string, string>> | null;
  /**
   * @internal No body at all (not an empty text): a `redirect()`, or a Web response with a null
   * body wrapped for after-middlewares (a Worker's redirect). Sent without a body or a
   * `Content-Type` while `description` and `stream` stay empty.
   */
  bodyAbsent = false;
  /**
   * @internal A handler's text (`textAnswer`): no `Content-Type` is stored, the headers show Bun's
   * own type of a string body, which Bun writes when it sends it (src/response/plain-text.ts).
   * Handed to the `Headers` when they are made, which carry it from then on.
   */
  impliedText = false;
  /**
   * @internal The Web response of a handler's text, made when an after-middleware first reads
   * `headers`: those headers are its own, so what the middleware sets is written where Bun reads
   * it, and `toWeb()` sends it as it is while the status and the body are `webStatus` and
   * `webBody`, the ones it was made with (docs/performance.md, "Issue 32, fourth pass: the
   * response side").
   */
  web: globalThis.Response | null = null;
  /** @internal */
  webStatus = 0;
  /** @internal */
  webBody: string | Uint8Array = "";

  constructor(
    statusCode = 200,
    headers?: Headers | Record<string, string> | globalThis.Headers,
    description: string | Uint8Array = "",
  ) {
    this.statusCode = statusCode;
    this.description = description;
    this.headersValue = null;
    this.headersInit = null;
    if (headers === undefined) return;
    if (isPlainHeaders(headers)) {
      // Checked once when it was made (src/http/headers.ts, `plainHeaders`): the framework's own.
      this.headersInit = headers;
    } else if (headers instanceof Headers) this.headersValue = headers;
    else if (headers instanceof globalThis.Headers) this.headersValue = new Headers(headers);
    else {
      checkHeaderObject(headers);
      this.headersInit = headers;
    }
  }

  /** The response headers (case-insensitive). */
  get headers(): Headers {
    if (this.headersValue === null) {
      this.headersValue = this.impliedText ? this.textHeaders() : new Headers(this.headersInit ?? undefined);
      this.headersInit = null;
    }
    return this.headersValue;
  }
  set headers(value: Headers) {
    this.headersValue = value;
    this.headersInit = null;
    // The Web response made for the old headers does not carry these.
    this.web = null;
  }

  /**
   * The headers of a handler's text: those of the Web response it is sent as, made now (see
   * `web`), when it has a body to send; else an empty `Headers`. Both show the implied type.
   */
  private textHeaders(): Headers {
    const status = this.statusCode;
    const text = this.description;
    let headers: Headers;
    if (typeof text === "string" && this.stream === null && !isNoBodyStatus(status)) {
      const web = status === 200 ? new globalThis.Response(text) : new globalThis.Response(text, { status });
      this.web = markImpliedText(web);
      this.webStatus = status;
      this.webBody = text;
      headers = new Headers(web.headers);
    } else headers = new Headers();
    headers.impliedText = true;
    return headers;
  }

  /** Adds a `Set-Cookie` header; several cookies give several headers. */
  setCookie(key: string, value: string, options: CookieOptions = {}): this {
    const line = serializeCookie(key, value, { path: "/", ...options });
    const raw = this.headers.raw;
    // One Set-Cookie per cookie name, the last value wins: a browser would apply them in order
    // anyway, but two lines for one name confuse proxies and caches (issue #14).
    const existing = raw.getSetCookie();
    const kept = existing.filter((cookie) => cookieName(cookie) !== key);
    if (kept.length !== existing.length) {
      raw.delete("set-cookie");
      for (const cookie of kept) raw.append("set-cookie", cookie);
    }
    raw.append("set-cookie", line);
    return this;
  }

  /** Tells the client to drop a cookie (same `path`/`domain` as when it was set). */
  deleteCookie(key: string, options: Pick<CookieOptions, "path" | "domain"> = {}): this {
    return this.setCookie(key, "", { ...options, maxAge: 0, expires: new Date(0) });
  }

  /** The Web response Bun sends (src/response/web-response.ts). */
  toWeb(): globalThis.Response {
    return webResponseOf(this);
  }

  /**
   * Wraps a Web response WITHOUT reading its body: streams, SSE, files and Web responses a handler
   * returned keep flowing to the client as they are produced, while after-middlewares still set
   * headers and cookies. `description` stays empty; the body is `stream`.
   */
  static fromWebStream(web: globalThis.Response): Response {
    const response = new Response(web.status, new Headers(new globalThis.Headers(web.headers)));
    response.stream = web.body;
    response.bodyAbsent = web.body === null;
    return response;
  }

  /** Wraps a Web response whose body is in memory; textual bodies are read so that `description` is usable. */
  static async fromWeb(web: globalThis.Response): Promise<Response> {
    const response = new Response(web.status, new Headers(new globalThis.Headers(web.headers)));
    if (web.body === null) {
      response.bodyAbsent = true;
      return response;
    }
    const type = contentTypeOf(web) ?? "";
    if (TEXTUAL.test(type)) response.description = await web.text();
    else if (web.headers.has("content-length") && !(web.body instanceof ReadableStream)) {
      response.description = new Uint8Array(await web.arrayBuffer());
    } else response.stream = web.body;
    return response;
  }
}

/**
 * A handler's text as the webfw `Response` its after-middlewares change (src/response/convert.ts):
 * no stored type, Bun's own implied (`impliedText`).
 */
export function textAnswer(text: string): Response {
  const response = new Response(200, undefined, text);
  response.impliedText = true;
  return response;
}

/**
 * The header objects of the other answers webfw makes from a handler's value
 * (src/response/convert.ts): checked and marked once at load (`plainHeaders`), so that no
 * response made with them checks again.
 */
export const JSON_HEADERS = plainHeaders({ "content-type": JSON_UTF8 });
export const BINARY_HEADERS = plainHeaders({ "content-type": BINARY });

/**
 * The header object of a new Response must be valid now, as it was when the constructor built a
 * Headers from it: a bad name or a CR/LF in a value throws where the handler made it. Checked
 * without building anything, with the rules of the Fetch standard (token names; no NUL, CR or LF
 * in values).
 */
function checkHeaderObject(headers: Record<string, string>): void {
  for (const name in headers) {
    const value = headers[name];
    if (!isToken(name)) throw new TypeError(`Invalid header name: '${name}'`);
    // A number is taken as its text, as the Headers constructor does.
    if (BAD_VALUE.test(String(value)))
      throw new TypeError(`Header '${name}' has invalid value: '${String(value)}'`);
  }
}

const BAD_VALUE = /[\0\n\r]/;

/** The name of a `Set-Cookie` line (`a=1; Path=/` gives `a`). */
function cookieName(line: string): string {
  const eq = line.indexOf("=");
  return (eq === -1 ? line : line.slice(0, eq)).trim();
}
