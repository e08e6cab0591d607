/**
 * The response cache of one route (docs/caching.md): wraps the route's handler, after its
 * middlewares and authentication have run, so a cached answer still passes CORS, sessions, auth
 * and the other layers of its request. Fresh entries are answered at once; a stale one is answered
 * while one refresh runs; a miss is computed once per key at a time: once per process (one promise
 * per key) and, with a shared store, once across processes and machines (the store's lock, the
 * others polling for the result until the lock is gone or their wait is over).
 */
import { isInMemory } from "../conditional/index.ts";
import type { Request } from "../http/request.ts";
import { logger } from "../log/logger.ts";
import { toWebResponse } from "../response/convert.ts";
import { withVisibleContentType } from "../response/plain-text.ts";
import { peekBody } from "../stream/peek-body.ts";
import { answerOf, MAX_ENTRY_BYTES, makeEntry, notStorable } from "./entry.ts";
import { keyTag, tagsOf } from "./keys.ts";
import type { ResolvedCache } from "./options.ts";
import type { CacheEntry, CacheStore } from "./store.ts";

type Handler = (request: Request) => unknown;

export interface CacheLayerContext {
  /** The app's store (`app.cache.store`), read per request: it is made on first use. */
  store(): CacheStore;
  /** `GET /path`: keys are per route, messages name it. */
  label: string;
  /** The handler runs on the worker pool: its answer arrives as a Web response (peeked, not trusted to be in memory). */
  offloaded: boolean;
  /** How long a computation may hold the key's lock, and others wait for it (ms). */
  lockMs: number;
}

/** What one computation gives: an entry, or an answer that was not stored (sent as is to its own request). */
interface Computed {
  entry: CacheEntry | null;
  response: globalThis.Response | null;
}

export function withCache(inner: Handler, setting: ResolvedCache, context: CacheLayerContext): Handler {
  const { label, lockMs } = context;
  const flights = new Map<string, Promise<Computed>>();
  const refreshing = new Set<string>();
  const keyed = setting.key !== null;
  const varyAuthorization = setting.vary.includes("authorization");
  const varyCookie = setting.vary.includes("cookie");

  const compute = async (
    request: Request,
    key: string,
    tags: string[],
    personal: boolean,
  ): Promise<Computed> => {
    const value = await inner(request);
    let response = await toWebResponse(value, request.raw);
    if (notStorable(response, setting) !== null || response.body === null) {
      if (response.body === null && notStorable(response, setting) === null)
        return store(key, makeEntry(response, new Uint8Array(0), setting, tags, personal));
      return { entry: null, response };
    }
    // Only bodies made in memory are read here: a stream, a file or SSE is sent as it comes.
    if (!context.offloaded && !isInMemory(value)) return { entry: null, response };
    response = withVisibleContentType(response);
    const peeked = await peekBody(response.body as ReadableStream<Uint8Array>, MAX_ENTRY_BYTES);
    if (!peeked.complete || peeked.bytes.byteLength > MAX_ENTRY_BYTES) {
      const body = peeked.complete ? (peeked.bytes as Uint8Array<ArrayBuffer>) : peeked.stream;
      return { entry: null, response: new globalThis.Response(body, response) };
    }
    return store(key, makeEntry(response, peeked.bytes, setting, tags, personal));
  };

  const store = async (key: string, entry: CacheEntry): Promise<Computed> => {
    const target = context.store();
    try {
      await target.set(key, entry);
    } catch (error) {
      warnCacheFailed(target, label, undefined, error);
    }
    return { entry, response: null };
  };

  /** A miss: this process's one computation of `key`, under the shared store's lock when it has one. */
  const fill = async (
    request: Request,
    key: string,
    tags: string[],
    personal: boolean,
  ): Promise<Computed> => {
    const target = context.store();
    if (target.lock === undefined) return compute(request, key, tags, personal);
    let token: string | null;
    try {
      token = await target.lock(key, lockMs);
    } catch (error) {
      warnCacheFailed(target, label, request.id, error);
      return compute(request, key, tags, personal);
    }
    if (token === null) {
      const entry = await waitForEntry(target, key, lockMs);
      if (entry !== null) return { entry, response: null };
      // The other computation stored nothing (not storable, failed) or took too long: compute here.
      return compute(request, key, tags, personal);
    }
    try {
      return await compute(request, key, tags, personal);
    } finally {
      target.unlock?.(key, token).catch((error: unknown) => warnCacheFailed(target, label, undefined, error));
    }
  };

  /** Stale: one refresh per key in this process, and none when another process holds the lock. */
  const refresh = (request: Request, key: string, tags: string[], personal: boolean): void => {
    if (refreshing.has(key)) return;
    refreshing.add(key);
    const target = context.store();
    const run = async (): Promise<void> => {
      const token = target.lock === undefined ? "" : await target.lock(key, lockMs);
      if (token === null) return;
      try {
        const computed = await compute(request, key, tags, personal);
        await computed.response?.body?.cancel();
      } finally {
        if (token !== "") await target.unlock?.(key, token);
      }
    };
    run()
      .catch((error: unknown) =>
        logger.warning("cache refresh failed", { route: label, request_id: request.id, error }),
      )
      .finally(() => refreshing.delete(key));
  };

  return async (request) => {
    const raw = request.raw;
    // Read through the request: finishes a pending Host check (src/serve/host-blind.ts).
    const headers = request.headers;
    const method = raw.method;
    if (method !== "GET" && method !== "HEAD") return inner(request);
    // An answer to credentials may be someone's own: stored only under a key that includes them.
    const personal =
      request.identity !== null ||
      (headers.has("authorization") && !varyAuthorization) ||
      (headers.has("cookie") && !varyCookie);
    if (personal && !keyed) return inner(request);
    const base = setting.key === null ? pathAndQuery(request) : await keyOf(setting.key, request, label);
    let key = `${label}\n${base}`;
    for (const name of setting.vary) key += `\n${headers.get(name) ?? ""}`;
    const target = context.store();
    let entry: CacheEntry | null = null;
    try {
      entry = await target.get(key);
    } catch (error) {
      warnCacheFailed(target, label, request.id, error);
    }
    const ifNoneMatch = headers.get("if-none-match");
    if (entry !== null) {
      const age = Date.now() - entry.storedAt;
      if (age < entry.ttl) return answerOf(entry, "hit", ifNoneMatch);
      if (age < entry.ttl + entry.staleWhileRevalidate) {
        refresh(request, key, tagsFor(request, base), personal);
        return answerOf(entry, "stale", ifNoneMatch);
      }
    }
    const running = flights.get(key);
    if (running !== undefined) {
      let shared: Computed | null = null;
      try {
        shared = await running;
      } catch {
        // The computation this request waited for threw: this request runs the handler itself.
      }
      return shared?.entry ? answerOf(shared.entry, "hit", ifNoneMatch) : inner(request);
    }
    const flight = fill(request, key, tagsFor(request, base), personal);
    flights.set(key, flight);
    try {
      const computed = await flight;
      return computed.entry ? answerOf(computed.entry, "miss", ifNoneMatch) : computed.response;
    } finally {
      flights.delete(key);
    }
  };

  function tagsFor(request: Request, base: string): string[] {
    return tagsOf(
      typeof setting.tags === "function" ? setting.tags(request) : setting.tags,
      keyTag(base),
      label,
    );
  }
}

/** The default key: the path and query as received (the same resource for every client). */
function pathAndQuery(request: Request): string {
  const url = request.url;
  return url.query === "" ? url.path : `${url.path}?${url.query}`;
}

async function keyOf(
  key: (request: Request) => string | Promise<string>,
  request: Request,
  label: string,
): Promise<string> {
  const made = await key(request);
  if (typeof made !== "string" || made === "")
    throw new TypeError(
      `the cache key function of ${label} returned ${JSON.stringify(made)}, not a non-empty string`,
    );
  return made;
}

/**
 * Another process or machine computes `key`: poll for its entry with backoff until it is there, the
 * lock is gone without one, or `maxMs` passed (then the caller computes by itself).
 */
async function waitForEntry(store: CacheStore, key: string, maxMs: number): Promise<CacheEntry | null> {
  const deadline = performance.now() + maxMs;
  let pause = 5;
  while (performance.now() < deadline) {
    await Bun.sleep(pause);
    pause = Math.min(pause * 2, 100);
    try {
      const entry = await store.get(key);
      if (entry !== null && Date.now() - entry.storedAt < entry.ttl) return entry;
      if (!(await store.locked?.(key))) return (await store.get(key)) ?? null;
    } catch {
      return null;
    }
  }
  return null;
}

/** At most one warning per store every 10 s (an outage would log once per request otherwise). */
const warned = new WeakMap<CacheStore, { at: number; unlogged: number }>();
function warnCacheFailed(
  store: CacheStore,
  route: string,
  requestId: string | undefined,
  error: unknown,
): void {
  const now = performance.now();
  const last = warned.get(store);
  if (last !== undefined && now - last.at < 10_000) {
    last.unlogged++;
    return;
  }
  warned.set(store, { at: now, unlogged: 0 });
  logger.warning("response cache store failed; answering without the cache", {
    route,
    request_id: requestId,
    error: (error as Error)?.message ?? String(error),
    ...(last !== undefined && last.unlogged > 0 ? { failures_not_logged: last.unlogged } : {}),
  });
}
