/**
 * Query parameters (spec `QueryParams`): each key maps to the list of its values.
 * Parsing is lenient as browsers are: a bad `%` escape is kept literally rather than refused.
 */
export class QueryParams {
  private readonly params: URLSearchParams;

  constructor(init?: string | URLSearchParams | Record<string, string | string[]>) {
    if (init instanceof URLSearchParams) this.params = init;
    else if (typeof init === "string" || init === undefined) this.params = new URLSearchParams(init);
    else {
      this.params = new URLSearchParams();
      for (const [key, value] of Object.entries(init)) {
        for (const item of Array.isArray(value) ? value : [value]) this.params.append(key, item);
      }
    }
  }

  /** The last value of `key` (a repeated key's last occurrence wins), or `defaultValue`. */
  get(key: string): string | null;
  get(key: string, defaultValue: string): string;
  get(key: string, defaultValue: string | null = null): string | null {
    const values = this.params.getAll(key);
    return values.length > 0 ? (values[values.length - 1] as string) : defaultValue;
  }

  /** Every value of a repeated key, or `undefined` when the key is absent. */
  getList(key: string): string[] | undefined {
    const values = this.params.getAll(key);
    return values.length > 0 ? values : undefined;
  }

  has(key: string): boolean {
    return this.params.has(key);
  }

  keys(): string[] {
    return [...new Set(this.params.keys())];
  }

  set(key: string, value: string): void {
    this.params.set(key, value);
  }

  append(key: string, value: string): void {
    this.params.append(key, value);
  }

  /** `{ key: [values…] }`, the spec's shape. */
  toDict(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const [key, value] of this.params) {
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
    return this.params.toString();
  }
}
