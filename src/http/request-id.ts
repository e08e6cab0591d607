/**
 * Every request's id (`request.id`, docs/request-ids.md): the client's `X-Request-Id` when it is
 * sane, else a new UUIDv7 (time-ordered, so ids sort by arrival in logs and databases).
 *
 * The id lives in the request's context (src/http/request-context.ts), where the request-id layer
 * (src/request-id/echo.ts) puts the one it echoes, and where the first reader puts the one it made
 * when that layer is off: the handler, the access log, spans, error logs and background-task
 * failures of one request read the same value. Every request has an id, so this is the core's;
 * echoing it, its header name and whether a client's id is trusted are the layer's
 * (docs/architecture.md, "What a Request knows").
 */
import { ContextSlot, type DispatchContext } from "./request-context.ts";

/** The longest client id kept (docs/request-ids.md): anything longer is replaced, never cut. */
export const MAX_REQUEST_ID_LENGTH = 128;

/** The header read and echoed unless the app names another. */
export const DEFAULT_REQUEST_ID_HEADER = "x-request-id";

const REQUEST_ID = new ContextSlot<string>();

/**
 * True for 1–128 visible ASCII characters (0x21–0x7E). Spaces, control
 * characters and non-ASCII are refused: they could split a log line, smuggle
 * a header or spoof another entry in a log viewer.
 */
export function isSaneRequestId(value: string): boolean {
  const length = value.length;
  if (length === 0 || length > MAX_REQUEST_ID_LENGTH) return false;
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x21 || code > 0x7e) return false;
  }
  return true;
}

/** A fresh id: a UUIDv7 from Bun (monotonic within the process). */
export function newRequestId(): string {
  return Bun.randomUUIDv7();
}

/** The id a request gets: the client's when sane (and trusted), else a new one. */
export function chooseRequestId(raw: globalThis.Request, header: string, trustIncoming: boolean): string {
  if (trustIncoming) {
    const incoming = raw.headers.get(header);
    if (incoming !== null && isSaneRequestId(incoming)) return incoming;
  }
  return newRequestId();
}

/** Records the id of a request in its own context (`contextOf`; the request-id layer, a Worker's request). */
export function assignRequestId(context: DispatchContext, id: string): void {
  REQUEST_ID.set(context, id);
}

/**
 * The id of a request. When no layer assigned one (request ids are off), the first reader makes
 * it by the same rule and keeps it in the request's own context, so a handler, an error log line
 * and a background task of one request always agree. Without an own context (nothing around the
 * route keeps per-request data) the id is made for this one reader.
 */
export function requestIdOf(raw: globalThis.Request, context: DispatchContext | null | undefined): string {
  let id = REQUEST_ID.get(context);
  if (id === undefined) {
    id = chooseRequestId(raw, DEFAULT_REQUEST_ID_HEADER, true);
    if (context !== null && context !== undefined && !context.shared) REQUEST_ID.set(context, id);
  }
  return id;
}
