/**
 * The interface every route-matching engine implements (`bun`, `ffi`, `js`).
 *
 * Engines match *paths* only. Methods are resolved by the caller from the
 * matched pattern, which is how 405 with `Allow` falls out for free.
 */
export interface PathMatch {
  /** The pattern as registered, e.g. `/users/:id`. */
  pattern: string;
  /** Raw (still percent-encoded) parameter values by name; `*rest` captures join with `/`. */
  params: Record<string, string>;
}

export interface PathMatcher {
  /** Registers a pattern: static segments, `:name` segments, and a final `*name` segment. */
  add(pattern: string): void;
  /**
   * Finds the pattern for a request path (no query string, already normalised:
   * leading `/`, no trailing slash except for the root). Precedence per segment:
   * static > `:param` > `*wildcard`, with backtracking.
   */
  match(path: string): PathMatch | null;
  /** Releases native resources, if any. */
  close?(): void;
}

export type RouterEngine = "bun" | "ffi" | "js";
