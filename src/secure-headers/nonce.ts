/**
 * This request's Content-Security-Policy nonce (`request.cspNonce`, docs/security.md): made by the
 * secure-headers layer before the route runs, only when the route's policy writes `NONCE`, and kept
 * in the request's context (src/http/csp-nonce.ts), where the handler and the layer read it back.
 */

/**
 * 128 random bits (CSP Level 3: unguessable, new for every response) in base64url, which CSP's
 * nonce grammar accepts and HTML escaping leaves alone (a template's `{{cspNonce}}` stays intact).
 */
export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
}
