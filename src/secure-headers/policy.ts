/**
 * A resolved `secureHeaders` option (src/secure-headers/options.ts) as header values, computed
 * once at the build: two lists, for plain HTTP and for TLS (`Strict-Transport-Security` and
 * `upgrade-insecure-requests` only over TLS), and the CSP cut where the nonce goes, so a request
 * only joins strings.
 */
import { NONCE, type ResolvedSecureHeaders } from "./options.ts";

export interface HeaderPolicy {
  /** Headers other than the CSP, for a plain-HTTP request. */
  readonly plain: readonly (readonly [string, string])[];
  /** The same over TLS. */
  readonly tls: readonly (readonly [string, string])[];
  /** `content-security-policy` or its report-only twin; `null` without a CSP. */
  readonly cspName: string | null;
  /** The CSP value cut at each `NONCE` (one piece: no nonce), plain HTTP and TLS. */
  readonly cspPlain: readonly string[];
  readonly cspTls: readonly string[];
  /** Whether a request needs a nonce (the CSP writes `NONCE` somewhere). */
  readonly usesNonce: boolean;
}

export function headerPolicy(resolved: ResolvedSecureHeaders): HeaderPolicy {
  const common: [string, string][] = [];
  if (resolved.contentTypeOptions) common.push(["x-content-type-options", "nosniff"]);
  if (resolved.frameOptions !== null) common.push(["x-frame-options", resolved.frameOptions]);
  if (resolved.referrerPolicy !== null) common.push(["referrer-policy", resolved.referrerPolicy]);
  if (resolved.crossOriginOpenerPolicy !== null)
    common.push(["cross-origin-opener-policy", resolved.crossOriginOpenerPolicy]);
  if (resolved.crossOriginResourcePolicy !== null)
    common.push(["cross-origin-resource-policy", resolved.crossOriginResourcePolicy]);
  if (resolved.crossOriginEmbedderPolicy !== null)
    common.push(["cross-origin-embedder-policy", resolved.crossOriginEmbedderPolicy]);
  if (resolved.permissionsPolicy !== null) common.push(["permissions-policy", resolved.permissionsPolicy]);
  if (resolved.originAgentCluster) common.push(["origin-agent-cluster", "?1"]);
  if (resolved.dnsPrefetchControl) common.push(["x-dns-prefetch-control", "off"]);
  if (resolved.permittedCrossDomainPolicies) common.push(["x-permitted-cross-domain-policies", "none"]);
  const tls = [...common];
  if (resolved.strictTransportSecurity !== null)
    tls.push(["strict-transport-security", resolved.strictTransportSecurity]);

  const csp = resolved.contentSecurityPolicy;
  const cspPlain = csp === null ? [] : cspPieces(csp.directives, false);
  return {
    plain: common,
    tls,
    cspName:
      csp === null
        ? null
        : csp.reportOnly
          ? "content-security-policy-report-only"
          : "content-security-policy",
    cspPlain,
    cspTls: csp === null ? [] : cspPieces(csp.directives, true),
    usesNonce: cspPlain.length > 1,
  };
}

/** The policy text split at every nonce source (the request's `'nonce-…'` joins the pieces). */
function cspPieces(directives: ReadonlyMap<string, readonly string[]>, tls: boolean): string[] {
  const parts: string[] = [];
  for (const [name, sources] of directives) {
    if (name === "upgrade-insecure-requests" && !tls) continue;
    parts.push(sources.length === 0 ? name : `${name} ${sources.join(" ")}`);
  }
  return parts.join("; ").split(NONCE);
}

/** The CSP value for one request: the pieces joined with its nonce. */
export function cspValue(pieces: readonly string[], nonce: string | undefined): string {
  return pieces.length === 1 || nonce === undefined ? (pieces[0] as string) : pieces.join(`'nonce-${nonce}'`);
}
