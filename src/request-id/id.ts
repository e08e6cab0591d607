/**
 * Request ids (docs/request-ids.md): the client's `X-Request-Id` when it is sane, else
 * a new UUIDv7 (time-ordered, so ids sort by arrival in logs and databases).
 *
 * The id of a request is kept on Bun's own request object, not on webfw's
 * `Request` wrapper: the outermost layer (the echo wrapper, the access log)
 * only has the raw request, and the handler's `request.id` must be the same
 * value. It is a symbol-keyed property (invisible to anything else, freed with
 * the request); a WeakMap did the same for ~330 more instructions a request
 * (bench/instructions.sh ids: 26,995 → 26,666).
 */

/** The longest client id kept (docs/request-ids.md): anything longer is replaced, never cut. */
export const MAX_REQUEST_ID_LENGTH = 128;

/** The header read and echoed unless the app names another. */
export const DEFAULT_REQUEST_ID_HEADER = "x-request-id";

const ID = Symbol("webfw.requestId");
type WithId = globalThis.Request & { [ID]?: string };

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

/** Records the id of a request (the first layer that sees it does this once). */
export function assignRequestId(raw: globalThis.Request, id: string): void {
  (raw as WithId)[ID] = id;
}

/**
 * The id of a request. When no layer assigned one (request ids are off), the
 * first reader makes it by the same rule, so a handler, an error log line and
 * a background task of one request always agree.
 */
export function requestIdOf(raw: globalThis.Request): string {
  let id = (raw as WithId)[ID];
  if (id === undefined) {
    id = chooseRequestId(raw, DEFAULT_REQUEST_ID_HEADER, true);
    (raw as WithId)[ID] = id;
  }
  return id;
}
