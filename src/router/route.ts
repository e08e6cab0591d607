export type { AppTypes, ClaimsOf, GlobalDepsOf, NoAppTypes, RouterDepsOf } from "./app-types.ts";

import type { StandardSchemaV1 } from "../args/standard-schema.ts";
import type { ArgShape, ArgSpec, InferArgs, RouteArgShape } from "../args/t.ts";
import type { CacheSetting } from "../cache/options.ts";
import type { ConditionalRouteOptions } from "../conditional/options.ts";
import type { ResponseEntry } from "../contracts/declared.ts";
import type { ResponseCheckMode } from "../contracts/mode.ts";
import type { CrossOriginSetting } from "../cross-origin/options.ts";
import type { Request } from "../http/request.ts";
import type { IpFilterSetting } from "../ip-filter/options.ts";
import type { RouteMcpOption } from "../mcp/route-tools/options.ts";
import type { RateLimitOptions } from "../rate-limit/options.ts";
import type { SecureHeadersOptions } from "../secure-headers/options.ts";
import type { AppTypes, NoAppTypes } from "./app-types.ts";

export const HTTP_METHODS = [
  "GET",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "HEAD",
  "OPTIONS",
  "CONNECT",
  "TRACE",
] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

type SegmentParam<S extends string> = S extends `:${infer Name}`
  ? Name
  : S extends `*${infer Name}`
    ? Name extends ""
      ? never
      : Name
    : never;
type ParamNames<P extends string> = P extends `${infer Head}/${infer Tail}`
  ? SegmentParam<Head> | ParamNames<Tail>
  : SegmentParam<P>;

/** Path parameter names inferred from a path literal: `/u/:id/*rest` gives `{ id: string; rest: string }`. */
export type PathParamsOf<P extends string> = string extends P
  ? Record<string, string>
  : { [K in ParamNames<P>]: string };

/** What the `body` option accepts: a Standard Schema validator (zod, valibot, …) or `t.object(...)`. */
export type BodySchema<B> = StandardSchemaV1<unknown, B> | ArgSpec<B>;

export type EmptyArgs = Record<never, ArgSpec<unknown>>;

/** `etag`, `cacheControl` and `preconditions` come from `ConditionalRouteOptions` (docs/conditional-requests.md). */
export interface RouteOptions<A extends RouteArgShape = EmptyArgs, B = unknown>
  extends ConditionalRouteOptions {
  /** Run only for authenticated requests; otherwise 401. */
  authRequired?: boolean;
  /** Compute the response once at start and serve it as a static response. */
  const?: boolean;
  /**
   * Typed arguments read from the path parameter of that name, else the query string: `t` specs
   * (with bounds) or Standard Schema validators (`z.coerce.number().min(1)`); 400 when invalid.
   */
  args?: A;
  /**
   * How the route takes its body. A schema validates the JSON or form body (422 with the issues
   * when invalid); the result is `request.parsedBody`. `"stream"`: the body is not read before the
   * handler, which reads it as it arrives, a multipart upload with `request.parts()`
   * (docs/uploads.md), any other with `request.raw.body` (docs/bodies.md); `maxBodySize` and the
   * body budget do not apply, the app's `uploads` bounds do. Not with `offload`.
   */
  body?: BodySchema<B> | "stream";
  /**
   * The success status (FastAPI's `status_code`): the handler's value is answered with it unless it
   * chooses its own (a `Response`, `[value, status]`, a dictionary response), and OpenAPI documents
   * it (docs/responses.md). `204`: no body. Default: 200 for a value, 204 for `undefined`.
   */
  status?: number;
  /** Run this handler on the worker pool when `--workers` > 1 (opt-in, docs/workers.md); default `false`: on the main thread. */
  offload?: boolean;
  /**
   * Milliseconds the handler may take before the request gets 503; 0: no limit. Default: the
   * nearest router's `timeoutMs`, else the app's (docs/options.md#time-limits).
   */
  timeoutMs?: number;
  /**
   * Requests per client and window on this route (docs/rate-limiting.md); `false`: no limit here even
   * when the app or a router declares one. Fields left out come from the enclosing declaration.
   */
  rateLimit?: RateLimitOptions | false;
  /**
   * Caches this GET route's answers (docs/caching.md): `{ ttl, staleWhileRevalidate?, key?, vary?, tags? }`;
   * `false`: not here even when the app or a router caches its routes (`router.cacheResponses(…)`,
   * the same name at every level).
   */
  cacheResponses?: CacheSetting;
  /**
   * Cross-site request protection of this (unsafe-method) route (docs/security.md): `false` turns it
   * off, `{ trustedOrigins }` trusts more origins. Default: the router's, else the app's (on).
   */
  csrf?: CrossOriginSetting;
  /**
   * This route's secure response headers (docs/security.md): `false` sends none, an object changes
   * the app's (CSP directives one by one) or, on an app without them, turns them on here.
   */
  secureHeaders?: false | SecureHeadersOptions;
  /**
   * Addresses and CIDR ranges allowed on or denied this route (docs/client-address.md#ip-filters), on
   * top of the app's and routers'; `false` drops those. A refusal is 403 before the body is read.
   */
  ipFilter?: IpFilterSetting;
  /** OpenAPI: a one-line summary. */
  summary?: string;
  /** OpenAPI: a longer description. */
  description?: string;
  /** OpenAPI: tags (sub-router prefixes are added automatically). */
  tags?: string[];
  /** OpenAPI: mark the operation deprecated. */
  deprecated?: boolean;
  /** OpenAPI: leave the route out of the document (default true). */
  includeInSchema?: boolean;
  /**
   * Documented responses, status to a description, `{ description, contentType?, schema? }` or the
   * schema itself. A `t` spec or Standard Schema for a status is also the route's response contract:
   * the handler's value is checked and cut down to what it declares (docs/responses.md).
   */
  responses?: Record<string, ResponseEntry>;
  /** What a value that breaks the declared response schema gets: `"fail"` (500), `"log"`, `"off"`. Default: the app's. */
  responseCheck?: ResponseCheckMode;
  /**
   * Also expose this route as an MCP tool (`true`, or `{ name, title, description, annotations,
   * authRequired, scopes }`); `false` keeps it out of `app.mcp.exposeRoutes()` (docs/mcp.md).
   */
  mcp?: RouteMcpOption;
}

export type Handler<
  P extends string = string,
  A = Record<string, unknown>,
  B = unknown,
  T extends AppTypes = NoAppTypes,
> = (request: Request<PathParamsOf<P>, A, B, T>) => unknown;

/** A route as registered, before compilation. */
export interface RouteRecord {
  method: HttpMethod;
  /** The full pattern including every router prefix. */
  path: string;
  handler: Handler<string, unknown, unknown>;
  options: RouteOptions<ArgShape, unknown>;
}

export type InferRouteArgs<A> = A extends RouteArgShape ? InferArgs<A> : Record<string, unknown>;

type TrimTrailingSlashes<S extends string> = S extends `${infer Head}/` ? TrimTrailingSlashes<Head> : S;
type TrimLeadingSlashes<S extends string> = S extends `/${infer Tail}` ? TrimLeadingSlashes<Tail> : S;
type CollapseSlashes<S extends string> = S extends `${infer Head}//${infer Tail}`
  ? CollapseSlashes<`${Head}/${Tail}`>
  : S;
type Normalised<S extends string> =
  TrimTrailingSlashes<CollapseSlashes<S>> extends infer N extends string
    ? N extends ""
      ? "/"
      : N extends `/${string}`
        ? N
        : `/${N}`
    : never;

/**
 * `joinPath` at the type level, for the path a route handle carries (`webfw/client`):
 * `JoinPath<"/api/", "/notes/:id">` is `"/api/notes/:id"`. Not a literal in, not a literal out.
 */
export type JoinPath<Prefix extends string, P extends string> = string extends Prefix
  ? string
  : string extends P
    ? string
    : Normalised<`${TrimTrailingSlashes<Prefix>}/${TrimLeadingSlashes<P>}`>;

/** Joins a router prefix and a path: `/api` + `/users/` gives `/api/users`. */
export function joinPath(prefix: string, path: string): string {
  return normalisePattern(`${prefix}/${path}`);
}

/**
 * Leading slash, no trailing slash (except the root), no empty segments. Split and joined, not
 * rewritten with regular expressions: a one-route app runs none at start (docs/performance.md,
 * "Start-up without regular expressions").
 */
export function normalisePattern(path: string): string {
  const segments = path.split("/");
  let out = "";
  for (let i = 0; i < segments.length; i++) if (segments[i] !== "") out += `/${segments[i]}`;
  return out === "" ? "/" : out;
}

/** Parameter names of a pattern, in order. */
export function patternParams(pattern: string): string[] {
  const names: string[] = [];
  for (const segment of pattern.split("/")) {
    if (segment.startsWith(":") || segment.startsWith("*")) names.push(segment.slice(1));
  }
  return names;
}

/** Checks a pattern's shape at registration; throws with the reason. */
export function validatePattern(pattern: string): void {
  const segments = pattern.split("/").slice(1);
  const seen = new Set<string>();
  segments.forEach((segment, index) => {
    if (segment.startsWith(":") || segment.startsWith("*")) {
      const name = segment.slice(1);
      if (!/^[A-Za-z_$][\w$]*$/.test(name))
        throw new Error(`invalid parameter name '${segment}' in route '${pattern}'`);
      if (seen.has(name)) throw new Error(`duplicate parameter '${name}' in route '${pattern}'`);
      seen.add(name);
      if (segment.startsWith("*") && index !== segments.length - 1) {
        throw new Error(`wildcard '${segment}' must be the last segment of route '${pattern}'`);
      }
    } else if (segment.includes(":") || segment.includes("*")) {
      throw new Error(`'${segment}' in route '${pattern}': parameters take a whole segment`);
    }
  });
}
