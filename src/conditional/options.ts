import type { Request } from "../http/request.ts";

/** What the route knows of the resource's current state, for `If-Match`/`If-Unmodified-Since` (docs/conditional-requests.md). */
export interface ResourceValidators {
  /** Its current entity-tag, quoted as sent: `"v7"` (strong) or `W/"v7"`. */
  etag?: string;
  /** When it last changed. */
  lastModified?: Date | number;
}

/**
 * Reads the target resource's validators before an unsafe request changes it; `null`: it does not
 * exist (then `If-Match: *` fails and `If-None-Match: *` passes).
 */
export type Preconditions = (
  request: Request,
) => ResourceValidators | null | Promise<ResourceValidators | null>;

/** The route options of conditional requests and caching headers. */
export interface ConditionalRouteOptions {
  /** A weak ETag on buffered 200 answers and `If-None-Match` → 304; default: the app's `etag`. */
  etag?: boolean;
  /** `Cache-Control` of the route's 2xx and 304 answers, unless the handler set one. */
  cacheControl?: string;
  /** Evaluate `If-Match`, `If-Unmodified-Since` and `If-None-Match` before the handler changes anything: 412. */
  preconditions?: Preconditions;
}

const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7E\x80-\xFF]*"$/;

/** Checked when the app is built: a route with a bad value fails the start, not a request. */
export function checkConditionalOptions(options: ConditionalRouteOptions, where: string): void {
  if (options.etag !== undefined && typeof options.etag !== "boolean") {
    throw new TypeError(`${where}: etag must be true or false`);
  }
  const cacheControl = options.cacheControl;
  if (
    cacheControl !== undefined &&
    (typeof cacheControl !== "string" || /[\r\n\0]/.test(cacheControl) || cacheControl.trim() === "")
  ) {
    throw new TypeError(`${where}: cacheControl must be a header value such as "public, max-age=60"`);
  }
  if (options.preconditions !== undefined && typeof options.preconditions !== "function") {
    throw new TypeError(
      `${where}: preconditions must be a function returning the resource's { etag, lastModified }`,
    );
  }
}

/** A validator's `etag`, checked when the route's function returns it (a bad one is the app's bug: 500). */
export function checkedEtag(etag: string | undefined): string | null {
  if (etag === undefined) return null;
  if (typeof etag !== "string" || !ENTITY_TAG.test(etag)) {
    throw new TypeError(
      `preconditions returned etag ${JSON.stringify(etag)}: an entity-tag is quoted, e.g. '"v7"'`,
    );
  }
  return etag;
}
