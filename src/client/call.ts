/**
 * One typed call at run time: the URL from the path pattern, its parameters and
 * arguments, the JSON body, then the answer read the way the route's type says
 * (docs/client.md). Shared by `client()` (over `fetch`) and `app.request(route, …)`
 * (in process). Only Web APIs: it runs in browsers, Bun and Node.
 */
import { ResponseStream } from "./response-stream.ts";
import { SseStream } from "./sse-stream.ts";

/** The untyped form of a call's input (the typed form is `CallInput` in route-types.ts). */
export interface RawCallInput {
  params?: Record<string, unknown>;
  args?: Record<string, unknown>;
  body?: unknown;
  headers?: Record<string, string> | globalThis.Headers;
  signal?: AbortSignal;
  init?: Omit<RequestInit, "method" | "body" | "headers" | "signal">;
}

/** What `fetch` must be: the global one, a wrapper, or `app.request` for tests. */
export type FetchFunction = (request: globalThis.Request) => Promise<globalThis.Response>;

/** Thrown (before anything is sent) when a call misses a path parameter or gets a bad one. */
export class ClientInputError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = "ClientInputError";
  }
}

function text(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  return String(value);
}

/** `/notes/:id/*rest` with `{ id: 1, rest: "a/b" }` gives `/notes/1/a/b`, each segment percent-encoded. */
export function fillPath(pattern: string, params: Record<string, unknown> = {}): string {
  return pattern
    .split("/")
    .map((segment) => {
      if (!segment.startsWith(":") && !segment.startsWith("*")) return segment;
      const name = segment.slice(1);
      const value = params[name];
      if (value === undefined || value === null)
        throw new ClientInputError(`missing path parameter '${name}' for ${pattern}`);
      const raw = text(value);
      if (segment.startsWith("*")) return raw.split("/").map(encodeURIComponent).join("/");
      if (raw === "") throw new ClientInputError(`path parameter '${name}' of ${pattern} is empty`);
      return encodeURIComponent(raw);
    })
    .join("/");
}

/** Arguments as a query string: lists repeat the name, objects go as JSON, absent values are left out. */
export function queryString(args: Record<string, unknown> = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) query.append(name, text(item));
    else query.append(name, text(value));
  }
  const out = query.toString();
  return out === "" ? "" : `?${out}`;
}

/** The base URL without a trailing slash; a relative one is resolved against the page's address (browsers). */
export function baseOf(base: string | URL): string {
  const given = String(base);
  let absolute: string;
  try {
    absolute = new URL(given).href;
  } catch {
    const page = (globalThis as { location?: { href?: string } }).location?.href;
    if (page === undefined)
      throw new ClientInputError(
        `'${given}' is not an absolute URL (only a browser page resolves relative ones)`,
      );
    absolute = new URL(given, page).href;
  }
  const url = new URL(absolute);
  url.search = "";
  url.hash = "";
  return url.href.replace(/\/+$/, "");
}

/** The Web request for a call. */
export function buildRequest(
  base: string,
  method: string,
  pattern: string,
  input: RawCallInput = {},
  defaults: Record<string, string> = {},
): globalThis.Request {
  const url = `${base}${fillPath(pattern, input.params)}${queryString(input.args)}`;
  const headers = new globalThis.Headers(defaults);
  for (const [name, value] of new globalThis.Headers(input.headers ?? {})) headers.set(name, value);
  // The client follows redirects itself, never to another origin (src/client/redirects.ts).
  const init: RequestInit = { ...input.init, method, headers, redirect: "manual" };
  if (input.signal) init.signal = input.signal;
  if ("body" in input) {
    const body = JSON.stringify(input.body);
    if (body === undefined) throw new ClientInputError(`the body of ${method} ${pattern} is not JSON`);
    init.body = body;
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  return new globalThis.Request(url, init);
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Reads an answer into the result a typed call resolves to (`ClientSuccess` or `ClientFailure`). */
export async function readResult(response: globalThis.Response, method: string): Promise<unknown> {
  const type = response.headers.get("content-type") ?? "";
  const base = { status: response.status, headers: response.headers, response };
  // A browser answers a redirect sent with `redirect: "manual"` with status 0 and no Location
  // (src/client/redirects.ts): say what happened.
  if (response.type === "opaqueredirect")
    return {
      ok: false,
      ...base,
      message: "redirected (a browser does not show where to)",
      body: "",
      issues: undefined,
    };
  if (response.ok) return { ok: true, ...base, data: await successData(response, method, type) };
  const body = await response.text();
  let parsed: unknown = body;
  if (JSON_TYPE.test(type)) {
    try {
      parsed = JSON.parse(body);
    } catch {
      // A JSON content type with a broken body: keep the text, the status still tells what happened.
    }
  }
  const issues = response.status === 422 ? (issuesOf(parsed) ?? []) : undefined;
  return { ok: false, ...base, message: messageOf(parsed, body), body: parsed, issues };
}

async function successData(response: globalThis.Response, method: string, type: string): Promise<unknown> {
  if (method === "HEAD" || response.status === 204 || response.status === 205 || response.body === null) {
    await response.body?.cancel();
    return undefined;
  }
  if (/^text\/event-stream/i.test(type)) return new SseStream(response.body);
  if (JSON_TYPE.test(type)) {
    const body = await response.text();
    return body === "" ? undefined : JSON.parse(body);
  }
  if (/^text\//i.test(type)) return response.text();
  return new ResponseStream(response.body);
}

function messageOf(parsed: unknown, text: string): string {
  if (typeof parsed === "object" && parsed !== null) {
    const record = parsed as Record<string, unknown>;
    for (const key of ["detail", "message", "title", "error"]) {
      if (typeof record[key] === "string") return record[key];
    }
  }
  return text;
}

function issuesOf(parsed: unknown): unknown {
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const record = parsed as Record<string, unknown>;
  // webfw's 422 sends `issues`; problem details (`errors: "problem"`) send `errors`.
  const list = Array.isArray(record.issues)
    ? record.issues
    : Array.isArray(record.errors)
      ? record.errors
      : null;
  return list ?? undefined;
}
