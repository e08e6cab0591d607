/**
 * The scopes an identity was granted. OAuth access tokens carry them as one
 * space-separated `scope` claim (RFC 8693 §4.2, RFC 9068 §2.2.3); some issuers use
 * an array (`scopes`, or `scp` as Azure AD and Okta do). All three are read.
 */
import type { Identity } from "../../auth/identity.ts";

function words(value: unknown): string[] {
  if (typeof value === "string") return value.split(" ").filter((word) => word !== "");
  if (Array.isArray(value))
    return value.filter((item): item is string => typeof item === "string" && item !== "");
  return [];
}

export function grantedScopes(identity: Identity<object> | null): Set<string> {
  if (identity === null) return new Set();
  const claims = identity.claims as Record<string, unknown>;
  return new Set([...words(claims.scope), ...words(claims.scopes), ...words(claims.scp)]);
}

/** The required scopes the identity lacks, in the order they were required. */
export function missingScopes(required: readonly string[], identity: Identity<object> | null): string[] {
  if (required.length === 0) return [];
  const granted = grantedScopes(identity);
  return required.filter((scope) => !granted.has(scope));
}
