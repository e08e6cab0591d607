/**
 * This request's Content-Security-Policy nonce (`request.cspNonce`, docs/security.md): set by the
 * secure-headers layer before the route runs, only when the route's policy writes `NONCE`, and
 * read back by the handler and by the layer when it writes the header. Keyed by the raw request,
 * so the lazy webfw `Request` pays nothing for it. Imports nothing: src/http/request.ts reads it.
 */
const nonces = new WeakMap<globalThis.Request, string>();

/** The nonce of `raw`, or `undefined` when the route's policy has none (or secure headers are off). */
export function cspNonceOf(raw: globalThis.Request): string | undefined {
  return nonces.get(raw);
}

/** Gives `raw` the nonce made for it on the main thread (an offloaded handler's Worker, src/workers/run-call.ts). */
export function setCspNonce(raw: globalThis.Request, nonce: string): void {
  nonces.set(raw, nonce);
}

/**
 * 128 random bits (CSP Level 3: unguessable, new for every response) in base64url, which CSP's
 * nonce grammar accepts and HTML escaping leaves alone (a template's `{{cspNonce}}` stays intact).
 */
export function newNonce(raw: globalThis.Request): string {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
  nonces.set(raw, nonce);
  return nonce;
}
