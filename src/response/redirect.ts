/**
 * `redirect(url, status = 302)`: a redirect answer (docs/responses.md, "Redirects"). A hand-made
 * `new Response(302, { location })` carries an empty `text/plain` body; this one has no body at
 * all (`Content-Length: 0`, no `Content-Type`), a checked status and a `Location` a client can
 * follow. It is a webfw `Response`, so `.setCookie()` chains and after-middlewares see it.
 */
import { Response } from "./response.ts";

/** The statuses the Fetch standard follows with `Location` (RFC 9110 §15.4). */
export const REDIRECT_STATUSES = [301, 302, 303, 307, 308] as const;
export type RedirectStatus = (typeof REDIRECT_STATUSES)[number];

/** A Response with no body on the wire (no empty `text/plain` added; src/response/response.ts). */
class RedirectResponse extends Response {
  constructor(status: number, location: string) {
    super(status, { location });
    this.bodyAbsent = true;
  }
}

// Control characters would split the header (CR/LF) or be refused by the client.
const CONTROL = /\p{Cc}/u;
// Outside printable ASCII, and `%` not starting an escape: percent-encoded as UTF-8.
const UNSAFE = /[^\u0021-\u007e]|%(?![0-9A-Fa-f]{2})/gu;

/**
 * Answers `status` (301, 302, 303, 307 or 308; default 302) with `Location: url`. `url` may be
 * absolute (`https://…`, a `URL`) or relative (`/login`, `../up`, `?page=2`): clients resolve it
 * against the request's URL. Spaces and non-ASCII characters are percent-encoded, existing escapes
 * kept. Throws `RangeError` for another status, `TypeError` for an empty URL or control characters.
 * Never pass a URL taken from the request unchecked: that is an open redirect.
 */
export function redirect(url: string | URL, status: RedirectStatus = 302): Response {
  if (!(REDIRECT_STATUSES as readonly number[]).includes(status))
    throw new RangeError(`redirect status must be one of ${REDIRECT_STATUSES.join(", ")}, got ${status}`);
  const text = url instanceof URL ? url.href : String(url);
  if (text === "") throw new TypeError("redirect needs a URL");
  if (CONTROL.test(text))
    throw new TypeError(`redirect URL has a control character: ${JSON.stringify(text)}`);
  return new RedirectResponse(status, text.replace(UNSAFE, encodeURIComponent));
}
