/**
 * Query parameters (spec `QueryParams`): each key maps to the list of its values.
 * Parsing is lenient as browsers are: a bad `%` escape is kept literally rather than refused.
 */
// Without escapes, '+' or surrogates (which the form-urlencoded parser re-encodes), that parser is
// exactly a split on '&' and '=': such query strings (most of them) skip URLSearchParams entirely.
const PLAIN = /^[^%+\uD800-\uDFFF]*$/;

export class QueryParams {
  /** The Web object; built only when needed (escapes in the query, mutation, `toString`). */
  private params: URLSearchParams | null;
  /** The query string this was made from, while `params` is not built. */
  private readonly source: string;
  /** Key to values of a plain query string, built on first read (`params` stays null). */
  private index: Map<string, string[]> | null = null;

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

  /** The plain-query index, or null when reads must go through URLSearchParams. */
  private plain(): Map<string, string[]> | null {
    if (this.index !== null) return this.index;
    if (this.params !== null) return null;
    if (!PLAIN.test(this.source)) {
      this.params = new URLSearchParams(this.source);
      return null;
    }
    const index = new Map<string, string[]>();
    const query = this.source.charCodeAt(0) === 63 /* ? */ ? this.source.slice(1) : this.source;
    let start = 0;
    while (start <= query.length) {
      let end = query.indexOf("&", start);
      if (end === -1) end = query.length;
      if (end > start) {
        // Search '=' within this pair only: scanning on into later pairs would be quadratic.
        const pair = query.slice(start, end);
        const eq = pair.indexOf("=");
        const key = eq === -1 ? pair : pair.slice(0, eq);
        const value = eq === -1 ? "" : pair.slice(eq + 1);
        const values = index.get(key);
        if (values) values.push(value);
        else index.set(key, [value]);
      }
      start = end + 1;
    }
    this.index = index;
    return index;
  }

  private web(): URLSearchParams {
    if (this.params === null) {
      this.params = new URLSearchParams(this.source);
      this.index = null;
    }
    return this.params;
  }

  /** The last value of `key` (a repeated key's last occurrence wins), or `defaultValue`. */
  get(key: string): string | null;
  get(key: string, defaultValue: string): string;
  get(key: string, defaultValue: string | null = null): string | null {
    const index = this.plain();
    const values = index ? index.get(key) : this.web().getAll(key);
    return values !== undefined && values.length > 0 ? (values[values.length - 1] as string) : defaultValue;
  }

  /** Every value of a repeated key, or `undefined` when the key is absent. */
  getList(key: string): string[] | undefined {
    const index = this.plain();
    const values = index ? index.get(key)?.slice() : this.web().getAll(key);
    return values !== undefined && values.length > 0 ? values : undefined;
  }

  has(key: string): boolean {
    return this.plain()?.has(key) ?? this.web().has(key);
  }

  keys(): string[] {
    const index = this.plain();
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
    // The index groups values by key; toDict groups them too, so key-major order gives the same result.
    for (const [key, values] of index) for (const value of values) yield [key, value];
  }
}
