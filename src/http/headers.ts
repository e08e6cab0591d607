/**
 * Case-insensitive HTTP headers (spec `Headers`). A thin layer over the Web
 * `Headers`, which already validates names and refuses CR/LF in values.
 */
export class Headers {
  /** The underlying Web headers; shared, not copied, when wrapping a request. */
  readonly raw: globalThis.Headers;

  constructor(init?: Record<string, string> | globalThis.Headers | Headers | [string, string][]) {
    if (init instanceof Headers) this.raw = new globalThis.Headers(init.raw);
    else if (init instanceof globalThis.Headers) this.raw = init;
    else this.raw = new globalThis.Headers(init);
  }

  get(name: string): string | null;
  get(name: string, defaultValue: string): string;
  get(name: string, defaultValue: string | null = null): string | null {
    return this.raw.get(name) ?? defaultValue;
  }

  /** Replaces every value of the header. */
  set(name: string, value: string): void {
    this.raw.set(name, value);
  }

  /** Adds a value, keeping the existing ones (`Set-Cookie` stays separate lines). */
  append(name: string, value: string): void {
    this.raw.append(name, value);
  }

  has(name: string): boolean {
    return this.raw.has(name);
  }

  delete(name: string): void {
    this.raw.delete(name);
  }

  getAll(name: string): string[] {
    if (name.toLowerCase() === "set-cookie") return this.raw.getSetCookie();
    const value = this.raw.get(name);
    return value === null ? [] : [value];
  }

  keys(): string[] {
    return [...this.raw.keys()];
  }

  /** Lower-cased names to values (repeated headers joined with `, ` as the Fetch standard does). */
  toDict(): Record<string, string> {
    return Object.fromEntries(this.raw.entries());
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.raw.entries();
  }
}
