/**
 * From an answer to a stored entry and back (docs/caching.md#http): which answers may be stored
 * (RFC 9111 §3 as it applies to a cache in the server), the headers an entry keeps and adds
 * (`ETag`, `Cache-Control`, `Vary`), and the answer made from an entry (`Age`, `Cache-Status`,
 * `If-None-Match` → 304).
 */
import { noneMatchFails, weakEtag } from "../conditional/entity-tags.ts";
import { notModified } from "../conditional/not-modified.ts";
import type { ResolvedCache } from "./options.ts";
import type { CacheEntry } from "./store.ts";

/** Statuses a cache may store without explicit freshness (RFC 9110 §15.1, "heuristically cacheable"). */
const STORABLE = new Set([200, 203, 204, 300, 301, 308, 404, 410]);
/** Bodies larger than this are sent, not stored. */
export const MAX_ENTRY_BYTES = 8 * 1024 * 1024;
/** Headers about one delivery, not the resource: Bun adds `Date`; `Age`/`Cache-Status` are made per answer. */
const NOT_STORED = new Set(["date", "age", "cache-status", "set-cookie", "transfer-encoding", "connection"]);

/**
 * Why an answer is not stored, or null when it may be: never one that sets a cookie, one the
 * handler marked `no-store`/`private`/`no-cache`, one that varies on a request header the key
 * does not include, or a status without heuristic freshness.
 */
export function notStorable(response: globalThis.Response, setting: ResolvedCache): string | null {
  if (!STORABLE.has(response.status)) return "status";
  const headers = response.headers;
  if (headers.has("set-cookie")) return "set-cookie";
  const control = headers.get("cache-control");
  if (control !== null && /(?:^|,)\s*(?:no-store|private|no-cache)\s*(?:[,=]|$)/i.test(control))
    return "cache-control";
  const vary = headers.get("vary");
  if (vary !== null) {
    for (const name of vary.split(",")) {
      const header = name.trim().toLowerCase();
      if (header !== "" && !setting.vary.includes(header)) return "vary";
    }
  }
  return null;
}

/** The entry of a storable answer whose body is `body`. `personal`: the key includes an identity. */
export function makeEntry(
  response: globalThis.Response,
  body: Uint8Array,
  setting: ResolvedCache,
  tags: string[],
  personal: boolean,
): CacheEntry {
  const headers: [string, string][] = [];
  let etag: string | null = null;
  let control = false;
  let vary: string | null = null;
  for (const [name, value] of response.headers) {
    if (NOT_STORED.has(name)) continue;
    if (name === "etag") etag = value;
    else if (name === "cache-control") control = true;
    else if (name === "vary") {
      vary = value;
      continue;
    }
    headers.push([name, value]);
  }
  // The handler's own ETag is reused; else the one src/conditional/ would make for these bytes.
  if (etag === null && response.status === 200) headers.push(["etag", weakEtag(body)]);
  if (!control) headers.push(["cache-control", cacheControlOf(setting, personal)]);
  const varied = new Set((vary ?? "").split(",").map((name) => name.trim().toLowerCase()));
  for (const name of setting.vary) varied.add(name);
  varied.delete("");
  if (varied.size > 0) headers.push(["vary", [...varied].join(", ")]);
  return {
    status: response.status,
    headers,
    body,
    storedAt: Date.now(),
    ttl: setting.ttl,
    staleWhileRevalidate: setting.staleWhileRevalidate,
    tags,
  };
}

/**
 * What downstream caches are told when the handler said nothing: fresh for the rest of `ttl`
 * (`Age` counts from the entry's making), then usable stale while revalidating. Never longer than
 * this cache keeps it; `private` when the key includes an identity (no shared cache may keep it).
 */
function cacheControlOf(setting: ResolvedCache, personal: boolean): string {
  const swr = Math.floor(setting.staleWhileRevalidate / 1000);
  return `${personal ? "private" : "public"}, max-age=${Math.floor(setting.ttl / 1000)}${swr > 0 ? `, stale-while-revalidate=${swr}` : ""}`;
}

export type CacheOutcome = "hit" | "stale" | "miss";

/** The answer made from an entry: `Age`, `Cache-Status` (RFC 9211), and 304 for a matching `If-None-Match`. */
export function answerOf(
  entry: CacheEntry,
  outcome: CacheOutcome,
  ifNoneMatch: string | null,
): globalThis.Response {
  const headers = new globalThis.Headers(entry.headers);
  const age = Math.max(0, Date.now() - entry.storedAt);
  headers.set("age", String(Math.floor(age / 1000)));
  const left = Math.floor((entry.ttl - age) / 1000);
  headers.set(
    "cache-status",
    outcome === "miss"
      ? "webfw; fwd=uri-miss; stored"
      : `webfw; hit; ttl=${left}${outcome === "stale" ? "; detail=stale" : ""}`,
  );
  if (ifNoneMatch !== null && entry.status === 200) {
    const etag = headers.get("etag");
    if (etag !== null && noneMatchFails(ifNoneMatch, etag))
      return notModified(new globalThis.Response(null, { headers }), etag);
  }
  const empty = entry.status === 204 || entry.status === 304;
  return new globalThis.Response(empty ? null : (entry.body as Uint8Array<ArrayBuffer>), {
    status: entry.status,
    headers,
  });
}
