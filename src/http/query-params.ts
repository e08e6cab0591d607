/**
 * Query parameters (spec `QueryParams`): each key maps to the list of its values.
 * Parsing is lenient as browsers are: a bad `%` escape is kept literally rather than refused.
 */
// Without escapes, '+' or surrogates (which the form-urlencoded parser re-encodes), that parser is
// exactly a split on '&' and '=': such query strings (most of them) skip URLSearchParams entirely.
/** Up to this many pairs a plain query is searched as a flat list rather than indexed by key. */
const FLAT_PAIRS = 16;

/** Every value of `key` in a flat `[key, value, …]` list, in query order. */
function flatValues(pairs: string[], key: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === key) values.push(pairs[i + 1] as string);
  return values;
}

export class QueryParams {
  /** The Web object; built only when needed (escapes in the query, mutation, `toString`). */
  private params: URLSearchParams | null;
  /** The query string this was made from, while `params` is not built. */
  private readonly source: string;
  /** Key to values of a plain query string, built on first read (`params` stays null). */
  private index: Map<string, string[]> | null = null;
  /** A short plain query string as `[key, value, …]` in query order (see `plain`). */
  private pairs: string[] | null = null;

  constructor(init?: string | URLSearchParams | Record<string, string | string[]>) {
    this.source = "";
    if (init instanceof URLSearchParams) this.params = init;
    else if (typeof init === "string" || init === undefined) {
      this.params = null;
      this.source = init ?? "";
    } else {
      this.params = new URLSearchParams();
      for (const [key, value] of Object.entries(init)) {
        for (const item of Array.isArray(value) ? value : [value]) this.params.append(key, item);
      }
    }
  }

  /**
   * The plain-query index, or null when reads must go through URLSearchParams. A short query (up to
   * `FLAT_PAIRS` pairs, nearly all of them) is kept as a flat `[key, value, key, value, …]` list in
   * query order and searched linearly: building a `Map` and an array per key cost more than the one
   * or two reads a handler makes (the params scenario, docs/performance.md). A longer one gets the
   * `Map`, so reads stay linear in the query's size, never quadratic.
   */
  private plain(): Map<string, string[]> | string[] | null {
    if (this.index !== null) return this.index;
    if (this.pairs !== null) return this.pairs;
    if (this.params !== null) return null;
    // One pass splits the pairs and looks for what makes a query not plain (then URLSearchParams
    // parses it): cheaper than a regular expression over it first and an `indexOf` per separator.
    const pairs: string[] = [];
    const query = this.source;
    let start = query.charCodeAt(0) === 63 /* ? */ ? 1 : 0;
    let eq = -1;
    for (let i = start; i <= query.length; i++) {
      const code = i === query.length ? 38 : query.charCodeAt(i);
      if (code === 38 /* & */) {
        if (i > start) {
          if (eq === -1) pairs.push(query.slice(start, i), "");
          else pairs.push(query.slice(start, eq), query.slice(eq + 1, i));
        }
        start = i + 1;
        eq = -1;
      } else if (code === 61 /* = */) {
        if (eq === -1) eq = i;
      } else if (code === 37 /* % */ || code === 43 /* + */ || (code >= 0xd800 && code <= 0xdfff)) {
        this.params = new URLSearchParams(this.source);
        return null;
      }
    }
    if (pairs.length <= FLAT_PAIRS * 2) {
      this.pairs = pairs;
      return pairs;
    }
    const index = new Map<string, string[]>();
    for (let i = 0; i < pairs.length; i += 2) {
      const key = pairs[i] as string;
      const values = index.get(key);
      if (values) values.push(pairs[i + 1] as string);
      else index.set(key, [pairs[i + 1] as string]);
    }
    this.index = index;
    return index;
  }

  private web(): URLSearchParams {
    if (this.params === null) {
      this.params = new URLSearchParams(this.source);
      this.index = null;
      this.pairs = null;
    }
    return this.params;
  }

  /** The last value of `key` (a repeated key's last occurrence wins), or `defaultValue`. */
  get(key: string): string | null;
  get(key: string, defaultValue: string): string;
  get(key: string, defaultValue: string | null = null): string | null {
    const index = this.plain();
    if (Array.isArray(index)) {
      for (let i = index.length - 2; i >= 0; i -= 2) if (index[i] === key) return index[i + 1] as string;
      return defaultValue;
    }
    const values = index ? index.get(key) : this.web().getAll(key);
    return values !== undefined && values.length > 0 ? (values[values.length - 1] as string) : defaultValue;
  }

  /** Every value of a repeated key, or `undefined` when the key is absent. */
  getList(key: string): string[] | undefined {
    const index = this.plain();
    const values = Array.isArray(index)
      ? flatValues(index, key)
      : index
        ? index.get(key)?.slice()
        : this.web().getAll(key);
    return values !== undefined && values.length > 0 ? values : undefined;
  }

  has(key: string): boolean {
    const index = this.plain();
    if (Array.isArray(index)) {
      for (let i = 0; i < index.length; i += 2) if (index[i] === key) return true;
      return false;
    }
    return index?.has(key) ?? this.web().has(key);
  }

  keys(): string[] {
    const index = this.plain();
    if (Array.isArray(index)) {
      const keys = new Set<string>();
      for (let i = 0; i < index.length; i += 2) keys.add(index[i] as string);
      return [...keys];
    }
    return index ? [...index.keys()] : [...new Set(this.web().keys())];
  }

  set(key: string, value: string): void {
    this.web().set(key, value);
  }

  append(key: string, value: string): void {
    this.web().append(key, value);
  }

  /** `{ key: [values…] }`, the spec's shape. */
  toDict(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const [key, value] of this.entries()) {
      // Own properties only: a key named `toString` or `__proto__` must not find (or set) the prototype's.
      const values = Object.hasOwn(out, key) ? out[key] : undefined;
      if (values) values.push(value);
      else
        Object.defineProperty(out, key, {
          value: [value],
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    return out;
  }

  toString(): string {
    return this.web().toString();
  }

  /** Every (key, value) pair in query order. */
  private *entries(): Generator<[string, string]> {
    const index = this.plain();
    if (index === null) {
      yield* this.web();
      return;
    }
    if (Array.isArray(index)) {
      for (let i = 0; i < index.length; i += 2) yield [index[i] as string, index[i + 1] as string];
      return;
    }
    // The index groups values by key; toDict groups them too, so key-major order gives the same result.
    for (const [key, values] of index) for (const value of values) yield [key, value];
  }
}
