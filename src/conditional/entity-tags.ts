/**
 * Entity tags and the comparisons of RFC 9110 §8.8.3 and §13.1: the weak ETag webfw makes for a
 * buffered body, `If-None-Match` (weak comparison) and `If-Match` (strong comparison) lists.
 */

/** `W/"<length>-<hash>"`: weak, because the same content may be sent with other codings or framings. */
export function weakEtag(bytes: Uint8Array): string {
  return `W/"${bytes.byteLength.toString(16)}-${Bun.hash.wyhash(bytes).toString(36)}"`;
}

/** The entity-tags of an `If-Match`/`If-None-Match` value; `"*"` alone is `["*"]`; a malformed member is left out. */
export function entityTags(header: string): string[] {
  const tags: string[] = [];
  const pattern = /\s*(\*|(?:W\/)?"[^"]*")\s*(?:,|$)/gy;
  let match: RegExpExecArray | null = pattern.exec(header);
  while (match !== null && match[0] !== "") {
    tags.push(match[1] as string);
    match = pattern.exec(header);
  }
  return tags;
}

function opaque(tag: string): string {
  return tag.startsWith("W/") ? tag.slice(2) : tag;
}

/** `If-None-Match` (weak comparison): does any listed tag, or `*`, match `etag`? */
export function noneMatchFails(header: string, etag: string | null): boolean {
  const tags = entityTags(header);
  if (tags.includes("*")) return etag !== null;
  if (etag === null) return false;
  const current = opaque(etag);
  return tags.some((tag) => opaque(tag) === current);
}

/** `If-Match` (strong comparison): true when the precondition holds; weak tags never match. */
export function ifMatchHolds(header: string, etag: string | null, exists: boolean): boolean {
  const tags = entityTags(header);
  if (tags.includes("*")) return exists;
  if (etag === null || etag.startsWith("W/")) return false;
  return tags.some((tag) => tag === etag);
}

/** An HTTP date in seconds, or null when it is not one (a bad date makes the condition ignored, RFC 9110 §13.1.3). */
export function httpDateSec(value: string | null): number | null {
  if (value === null) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}
