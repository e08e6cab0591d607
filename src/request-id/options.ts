import { DEFAULT_REQUEST_ID_HEADER } from "../http/request-id.ts";
import { isToken } from "../http/token.ts";

/** `new Webfw(path, { requestId })`: see docs/request-ids.md. */
export interface RequestIdOptions {
  /** The header read from the client and echoed on every response; default `X-Request-Id`. */
  header?: string;
  /**
   * Keep a sane id the client sent (≤ 128 visible ASCII characters); default `true`. Set it to
   * `false` on a server the public reaches directly, so every id is one the server made.
   */
  trustIncoming?: boolean;
}

export interface ResolvedRequestIdOptions {
  /** Lower case, as Bun's headers compare. */
  header: string;
  trustIncoming: boolean;
}

/** `true` → the defaults; `false`/absent → off (`null`); an object → checked. */
export function resolveRequestIdOptions(
  option: boolean | RequestIdOptions | undefined,
): ResolvedRequestIdOptions | null {
  if (option === undefined || option === false) return null;
  const given = option === true ? {} : option;
  const header = given.header ?? DEFAULT_REQUEST_ID_HEADER;
  if (typeof header !== "string" || !isToken(header)) {
    throw new TypeError(`requestId.header must be a header name, got ${JSON.stringify(header)}`);
  }
  return { header: header.toLowerCase(), trustIncoming: given.trustIncoming ?? true };
}
