import { type CookieOptions, serializeCookie } from "../http/cookies.ts";
import { Headers, PLAIN_FORM, plainHeaders } from "../http/headers.ts";
import { BINARY, JSON_UTF8, TEXT_PLAIN } from "../http/media-type.ts";
import { contentTypeOf, PLAIN_TEXT } from "./plain-text.ts";
import { markStreamed } from "./streamed.ts";

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
  private headersValue: Headers | null;
  /**
   * The handler's own header object, until something reads `headers`: a response returned straight
   * to the client then gets its Web headers built once, by Bun, from this object (`toWeb`), instead
   * of a Headers object here and a copy of it there (two native objects, ~40 % of the JavaScript
   * time of the params benchmark).
   */
  private headersInit: Readonly<Record<string, string>> | null;
  /**
   * No body at all (not an empty text): a `redirect()`, or a Web response with a null body wrapped
   * for after-middlewares (a Worker's redirect). Sent without a body or a `Content-Type` while
   * `description` and `stream` stay empty.
   */
  protected bodyAbsent = false;

  constructor(
    statusCode = 200,
    headers: Headers | Record<string, string> | globalThis.Headers = {},
    description: string | Uint8Array = "",
  ) {
    this.statusCode = statusCode;
    if ((headers as { [PLAIN_FORM]?: true })[PLAIN_FORM] === true) {
      // Checked once when it was made (src/http/headers.ts, `plainHeaders`): the framework's own.
      this.headersValue = null;
      this.headersInit = headers as Readonly<Record<string, string>>;
    } else if (headers instanceof Headers) {
      this.headersValue = headers;
      this.headersInit = null;
    } else if (headers instanceof globalThis.Headers) {
      this.headersValue = new Headers(headers);
      this.headersInit = null;
    } else {
      checkHeaderObject(headers);
      this.headersValue = null;
      this.headersInit = headers;
    }
    this.description = description;
  }

  /** The response headers (case-insensitive). */
  get headers(): Headers {
    if (this.headersValue === null) {
      this.headersValue = new Headers(this.headersInit ?? {});
      this.headersInit = null;
    }
    return this.headersValue;
  }
  set headers(value: Headers) {
    this.headersValue = value;
    this.headersInit = null;
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

  /** The Web response Bun sends. */
  toWeb(): globalThis.Response {
    const noBody =
      this.statusCode === 204 ||
      this.statusCode === 304 ||
      this.statusCode < 200 ||
      (this.bodyAbsent && this.description === "" && this.stream === null);
    // The handler's header object, or the plain form of `headers` (src/http/headers.ts), written
    // into the Web response's own headers one by one: Bun's conversion of a header object in the
    // response init costs more than the response itself (docs/performance.md, "The middleware
    // path"). After `raw` or a cookie, the Web headers themselves.
    const init = this.headersInit ?? (this.headersValue as Headers).plain;
    if (init !== null) return this.webWith(init, noBody);
    const headers = this.headers.raw;
    if (!headers.has("content-type") && !noBody && this.stream === null) {
      headers.set("content-type", typeof this.description === "string" ? TEXT_PLAIN : BINARY);
    }
    const body = noBody ? null : ((this.stream ?? this.description) as BodyInit);
    return this.streamedIf(new globalThis.Response(body, { status: this.statusCode, headers }), noBody);
  }

  /**
   * The Web response with the headers of a header object. Each is appended, as the response init
   * would (a name given twice in two spellings joins its values), but the type, which is set. A
   * string body without a type, or with Bun's own (`text/plain;charset=utf-8`), gets Bun's default,
   * implied and marked rather than written (src/response/plain-text.ts).
   */
  private webWith(init: Readonly<Record<string, string>>, noBody: boolean): globalThis.Response {
    const body = noBody ? null : ((this.stream ?? this.description) as BodyInit);
    const web =
      this.statusCode === 200
        ? new globalThis.Response(body)
        : new globalThis.Response(body, { status: this.statusCode });
    let typed = noBody || this.stream !== null;
    let implied = false;
    for (const name in init) {
      const value = init[name] as string;
      if (name.length === 12 && name.toLowerCase() === "content-type") {
        // Bun's own type of a string body is left to Bun, as for a handler's string: writing it
        // cost as much as the rest of the headers of a middleware's answer (docs/performance.md,
        // "Issue 32, third pass").
        if (!typed && value === TEXT_PLAIN && typeof body === "string") implied = true;
        else web.headers.set(name, value);
        typed = true;
      } else web.headers.append(name, value);
    }
    if (implied || !typed) {
      if (typeof body === "string") {
        // The implied-text mark (src/response/plain-text.ts), set here as its property.
        (web as { [PLAIN_TEXT]?: true })[PLAIN_TEXT] = true;
        return web;
      }
      web.headers.set("content-type", BINARY);
    }
    return this.streamedIf(web, noBody);
  }

  /** Marks a Web response that carries this response's stream (src/response/streamed.ts). */
  private streamedIf(web: globalThis.Response, noBody: boolean): globalThis.Response {
    return this.stream !== null && !noBody ? markStreamed(web) : web;
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
 * The header objects of the answers webfw makes from a handler's value (src/response/convert.ts):
 * checked and marked once at load (`plainHeaders`), so that no response made with them checks again.
 */
export const TEXT_HEADERS = plainHeaders({ "content-type": TEXT_PLAIN });
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
    if (!HEADER_NAME.test(name)) throw new TypeError(`Invalid header name: '${name}'`);
    // A number is taken as its text, as the Headers constructor does.
    if (BAD_VALUE.test(String(value)))
      throw new TypeError(`Header '${name}' has invalid value: '${String(value)}'`);
  }
}

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[\0\n\r]/;

/** The name of a `Set-Cookie` line (`a=1; Path=/` gives `a`). */
function cookieName(line: string): string {
  const eq = line.indexOf("=");
  return (eq === -1 ? line : line.slice(0, eq)).trim();
}
