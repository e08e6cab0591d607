/**
 * How the typed client treats redirects (docs/client.md, "Redirects"). `fetch` follows them by
 * default and re-sends the request's headers (an API key, a cookie: every default header of the
 * client) to wherever the `Location` points, and a 307/308 re-sends a POST body there too. The
 * client sends with `redirect: "manual"` and follows itself:
 *
 * - `"same-origin"` (the default): redirects that stay on the request's origin (scheme, host and
 *   port) are followed, with the Fetch standard's method rules; one to another origin is not
 *   followed, and the call resolves with that 3xx answer (`ok: false`, its `Location` in `headers`).
 * - `"manual"`: no redirect is followed; the call resolves with the 3xx answer.
 *
 * Nothing is ever sent to an origin the caller did not name.
 */
import type { FetchFunction } from "./call.ts";

export type RedirectMode = "same-origin" | "manual";

/** The Fetch standard's limit. */
export const MAX_REDIRECTS = 20;

const REDIRECT = new Set([301, 302, 303, 307, 308]);
// Headers that describe a body: dropped when a redirect turns the request into a GET.
const BODY_HEADERS = [
  "content-type",
  "content-length",
  "content-encoding",
  "content-language",
  "content-location",
];

/** Sends `request`, following redirects as `mode` says. */
export async function sendFollowing(
  send: FetchFunction,
  request: globalThis.Request,
  mode: RedirectMode,
): Promise<globalThis.Response> {
  if (mode === "manual") return send(request);
  // A request's body is consumed by sending it: its bytes are kept to re-send on a 307/308.
  const body = request.body === null ? null : await request.clone().arrayBuffer();
  let current = request;
  for (let hops = 0; ; hops++) {
    const response = await send(current);
    const location = response.headers.get("location");
    if (!REDIRECT.has(response.status) || location === null) return response;
    let next: URL;
    try {
      next = new URL(location, current.url);
    } catch {
      return response; // A Location that is not a URL: the answer as it is.
    }
    // Another origin: not followed, so none of the request's headers or body goes there.
    if (next.origin !== new URL(current.url).origin) return response;
    if (hops + 1 > MAX_REDIRECTS) {
      await response.body?.cancel();
      throw new TypeError(
        `too many redirects (more than ${MAX_REDIRECTS}) from ${request.method} ${request.url}`,
      );
    }
    await response.body?.cancel();
    current = nextRequest(current, body, response.status, next.href);
  }
}

/** The request a redirect asks for: 303 (and 301/302 after a POST) become a GET without a body. */
function nextRequest(
  previous: globalThis.Request,
  body: ArrayBuffer | null,
  status: number,
  url: string,
): globalThis.Request {
  const toGet =
    (status === 303 && previous.method !== "GET" && previous.method !== "HEAD") ||
    ((status === 301 || status === 302) && previous.method === "POST");
  const headers = new globalThis.Headers(previous.headers);
  if (toGet) for (const name of BODY_HEADERS) headers.delete(name);
  return new globalThis.Request(url, {
    method: toGet ? "GET" : previous.method,
    headers,
    body: toGet ? null : body,
    signal: previous.signal,
    redirect: "manual",
  });
}
