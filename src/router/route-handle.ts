/**
 * What `app.get(...)` and the other registration methods return: a handle on the
 * registered route. At run time it only tells the route's method and full path
 * (which changes when its router is mounted under a prefix); at compile time it
 * carries everything `webfw/client` needs to type a call to it (docs/client.md):
 * the path literal with its router's prefix, the options given (args, body,
 * authRequired, responses) and what the handler returns. Nothing here runs per
 * request.
 */
import type { HttpMethod, RouteRecord } from "./route.ts";

/** The compile-time description of a route; `webfw/client` reads it, nothing sets it at run time. */
export interface RouteShape<
  M extends HttpMethod = HttpMethod,
  P extends string = string,
  R = unknown,
  O = unknown,
  Prefix extends string = string,
> {
  readonly method: M;
  /** The path as given to the registration method; `webfw/client` joins it to `prefix` (`JoinPath`). */
  readonly path: P;
  /** The router's prefix (kept apart so that a handle stays assignable to one with a wider prefix). */
  readonly prefix: Prefix;
  /** The handler's return type, before awaiting and JSON conversion. */
  readonly returns: R;
  /** The route options as written (the `args` and `body` schemas, `authRequired`, `responses`). */
  readonly options: O;
}

export class Route<
  M extends HttpMethod = HttpMethod,
  P extends string = string,
  R = unknown,
  O = unknown,
  Prefix extends string = string,
> {
  /** Phantom field: the route's types for `webfw/client`; never set at run time. */
  declare readonly "~route": RouteShape<M, P, R, O, Prefix>;
  readonly #record: RouteRecord;

  /** @internal Made by the registration methods. */
  constructor(record: RouteRecord) {
    this.#record = record;
  }

  /** The HTTP method (upper case). */
  get method(): M {
    return this.#record.method as M;
  }

  /** The full path pattern, every router prefix included (`/notes/:id`). */
  get path(): string {
    return this.#record.path;
  }

  toString(): string {
    return `${this.method} ${this.path}`;
  }
}
