/** `webfw/secure-headers`: the `secureHeaders` option's types and the CSP nonce marker (docs/security.md). */
export {
  type ContentSecurityPolicyOptions,
  type CspSources,
  NONCE,
  type PermissionAllowList,
  type ReferrerPolicyValue,
  type ResolvedSecureHeaders,
  type SecureHeadersOptions,
  type StrictTransportSecurityOptions,
} from "../secure-headers/options.ts";
