/**
 * The tags an entry is indexed by (docs/caching.md#invalidation): the route's own, and one for its
 * key, so that `invalidate({ key })` and `invalidate({ tags })` are one operation on the store.
 * Prefixed so that a tag named like a key never collides with it.
 */

/** The tag of every entry whose key (the key function's value, else the path and query) is `key`. */
export function keyTag(key: string): string {
  return `k:${key}`;
}

export function userTag(tag: string): string {
  return `t:${tag}`;
}

/** Checks a tags function's value and adds the key's tag. */
export function tagsOf(tags: unknown, key: string, label: string): string[] {
  if (!Array.isArray(tags) || tags.some((tag) => typeof tag !== "string" || tag === ""))
    throw new TypeError(`the cache tags of ${label} must be a list of non-empty strings`);
  return [...(tags as string[]).map(userTag), key];
}

/** The store's tags of an `invalidate` call: `{ tags }` or `{ key }` (or both). */
export function invalidationTags(target: { tags?: string[]; key?: string }, where: string): string[] {
  if (typeof target !== "object" || target === null)
    throw new TypeError(`${where} needs { tags } or { key }`);
  const tags: string[] = [];
  if (target.tags !== undefined) {
    if (!Array.isArray(target.tags) || target.tags.some((tag) => typeof tag !== "string" || tag === ""))
      throw new TypeError(`${where}: tags must be a list of non-empty strings`);
    tags.push(...target.tags.map(userTag));
  }
  if (target.key !== undefined) {
    if (typeof target.key !== "string" || target.key === "")
      throw new TypeError(`${where}: key must be a non-empty string`);
    tags.push(keyTag(target.key));
  }
  if (target.tags === undefined && target.key === undefined)
    throw new TypeError(`${where} needs { tags } or { key }`);
  return tags;
}
