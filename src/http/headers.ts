import { TEXT_PLAIN } from "./media-type.ts";
import { isToken } from "./token.ts";

/**
 * Case-insensitive HTTP headers (spec `Headers`), with the Fetch standard's rules.
 *
 * Two forms behind one API (docs/requests.md, "Headers"): a response's headers start as a plain
 * object of lower-cased names (valid names, values without NUL, CR, LF or surrounding
 * whitespace), which `get`/`set`/`has`/`delete`/`append` read and write as they are and
 * `Response.toWeb()` hands to Bun, which builds its native headers once when it sends them. The
 * Web `Headers` (`raw`) is made on the first need of it and used from then on: `raw` itself,
 * cookies (`Set-Cookie` lines stay separate there), and anything the plain form does not hold
 * as is (an invalid name or value, so that the Web `Headers` throws its own error where it
 * always did; a value it would trim). A request's headers are Bun's own Web `Headers`, shared;
 * so are the headers of the Web response a handler's text is sent as when an after-middleware reads
 * them (src/response/response.ts): what the middleware sets is written where Bun reads it.
 */
export class Headers {
  private native: globalThis.Headers | null;
  /**
   * @internal The plain form: lower-cased names to values, no `Set-Cookie`; `null` once `raw` is
   * made. `Response.toWeb()` writes it into the Web response it makes.
   */
  plain: Record<string, string> | null;
  /**
   * @internal No `Content-Type` is stored, but the headers show Bun's own type of a string body,
   * `text/plain;charset=utf-8`, which Bun writes when it sends the response (src/response/plain-text.ts):
   * the headers of a handler's text with after-middlewares (docs/responses.md, "Return values").
   * Writing the type, or removing it, ends it; `raw` and the readers of every header write it.
   */
  impliedText = false;

  constructor(init?: Record<string, string> | globalThis.Headers | Headers | [string, string][]) {
    this.native = null;
    this.plain = null;
    if (init instanceof Headers) {
      // A copy: the two objects change apart (the spread copies the plain form's own names only).
      if (init.plain !== null) this.plain = { ...init.plain };
      else this.native = new globalThis.Headers(init.native as globalThis.Headers);
      this.impliedText = init.impliedText;
    } else if (init instanceof globalThis.Headers) this.native = init;
    else if (init === undefined) this.plain = {};
    else if (Array.isArray(init)) this.native = new globalThis.Headers(init);
    else if (isPlainHeaders(init)) this.plain = { ...init };
    else {
      this.plain = plainOf(init);
      if (this.plain === null) this.native = new globalThis.Headers(init);
    }
  }

  /**
   * The Web headers underneath: shared, not copied, when wrapping a request or the Web response a
   * webfw `Response` sends; made on first use for the others. They hold every header, the implied
   * text type too.
   */
  get raw(): globalThis.Headers {
    if (this.impliedText) this.writeImpliedText();
    return this.web();
  }

  get(name: string): string | null;
  get(name: string, defaultValue: string): string;
  get(name: string, defaultValue: string | null = null): string | null {
    const plain = this.plain;
    if (plain === null) {
      const value = (this.native as globalThis.Headers).get(name);
      if (value !== null) return value;
      return this.impliedText && isContentType(name) ? TEXT_PLAIN : defaultValue;
    }
    // Only own values are strings: what the prototype has under a name (`constructor`) is not.
    const value = plain[name.toLowerCase()];
    if (typeof value === "string") return value;
    if (this.impliedText && isContentType(name)) return TEXT_PLAIN;
    // An invalid name throws, as the Web `Headers` does.
    if (!isToken(name)) this.web().get(name);
    return defaultValue;
  }

  /** Replaces every value of the header. */
  set(name: string, value: string): void {
    if (this.impliedText && isContentType(name)) this.impliedText = false;
    const plain = this.plain;
    if (plain === null) {
      (this.native as globalThis.Headers).set(name, value);
      return;
    }
    const lower = name.toLowerCase();
    if (isPlainName(name, lower) && isPlainValue(value)) plain[lower] = value;
    else this.web().set(name, value);
  }

  /** Adds a value, keeping the existing ones (`Set-Cookie` stays separate lines). */
  append(name: string, value: string): void {
    if (this.impliedText && isContentType(name)) this.writeImpliedText();
    const plain = this.plain;
    if (plain === null) {
      (this.native as globalThis.Headers).append(name, value);
      return;
    }
    const lower = name.toLowerCase();
    if (isPlainName(name, lower) && isPlainValue(value)) plain[lower] = combined(plain[lower], value);
    else this.web().append(name, value);
  }

  has(name: string): boolean {
    const plain = this.plain;
    const stored =
      plain === null || !isToken(name) ? this.web().has(name) : typeof plain[name.toLowerCase()] === "string";
    return stored || (this.impliedText && isContentType(name));
  }

  delete(name: string): void {
    if (this.impliedText && isContentType(name)) this.impliedText = false;
    const plain = this.plain;
    if (plain === null || !isToken(name)) this.web().delete(name);
    else if (Object.hasOwn(plain, name.toLowerCase())) delete plain[name.toLowerCase()];
  }

  getAll(name: string): string[] {
    if (name.toLowerCase() === "set-cookie") return this.plain === null ? this.web().getSetCookie() : [];
    const value = this.get(name);
    return value === null ? [] : [value];
  }

  /** Lower-cased names, sorted (the Fetch standard's order). */
  keys(): string[] {
    if (this.impliedText) this.writeImpliedText();
    const plain = this.plain;
    return plain === null ? [...this.web().keys()] : Object.keys(plain).sort();
  }

  /** Lower-cased names to values (repeated headers joined with `, ` as the Fetch standard does). */
  toDict(): Record<string, string> {
    if (this.impliedText) this.writeImpliedText();
    const plain = this.plain;
    if (plain === null) return Object.fromEntries(this.web().entries());
    const dict: Record<string, string> = {};
    for (const name of Object.keys(plain).sort()) dict[name] = plain[name] as string;
    return dict;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    if (this.impliedText) this.writeImpliedText();
    const plain = this.plain;
    if (plain === null) return this.web().entries();
    return Object.keys(plain)
      .sort()
      .map((name): [string, string] => [name, plain[name] as string])
      [Symbol.iterator]();
  }

  /** The Web headers, made from the plain form on the first need of them (the implied type left as it is). */
  private web(): globalThis.Headers {
    if (this.native === null) {
      this.native = new globalThis.Headers(this.plain ?? undefined);
      this.plain = null;
    }
    return this.native;
  }

  /** The implied text type, written as a header: for the readers of every header and of `raw`. */
  private writeImpliedText(): void {
    this.impliedText = false;
    if (this.plain !== null) this.plain["content-type"] = TEXT_PLAIN;
    else (this.native as globalThis.Headers).set("content-type", TEXT_PLAIN);
  }
}

/** Whether `name` is `Content-Type`, in any case. */
function isContentType(name: string): boolean {
  return name.length === 12 && name.toLowerCase() === "content-type";
}

/**
 * A name the plain form holds: valid, and neither `Set-Cookie` (separate lines, kept by the Web
 * `Headers`) nor `__proto__` (not an own property of an object literal).
 */
function isPlainName(name: string, lower: string): boolean {
  return lower !== "set-cookie" && lower !== "__proto__" && isToken(name);
}

/**
 * A value the Web `Headers` keeps exactly as given: Latin-1 text without control characters and
 * without a space at either end (it trims those). Anything else goes to the Web `Headers`.
 */
function isPlainValue(value: string): boolean {
  if (typeof value !== "string") return false;
  const last = value.length - 1;
  if (last < 0) return true;
  if (value.charCodeAt(0) === 32 || value.charCodeAt(last) === 32) return false;
  // Control characters (tabs included, trimmed at the ends) and non-Latin-1 text: the Web `Headers` decides.
  for (let i = 0; i <= last; i++) {
    const code = value.charCodeAt(i);
    if (code < 32 || code > 255 || code === 127) return false;
  }
  return true;
}

/** The plain form of a header object, or `null` when a name or value needs the Web `Headers`. */
function plainOf(init: Record<string, string>): Record<string, string> | null {
  const plain: Record<string, string> = {};
  for (const name in init) {
    const value = init[name] as string;
    const lower = name.toLowerCase();
    if (!isPlainName(name, lower) || !isPlainValue(value)) return null;
    plain[lower] = combined(plain[lower], value);
  }
  return plain;
}

/** The Fetch standard's combined value of a repeated header: the values joined with `, `. */
function combined(existing: string | undefined, value: string): string {
  return typeof existing === "string" ? `${existing}, ${value}` : value;
}

/** The mark of a header object checked once to be in the plain form (`plainHeaders`). */
const PLAIN_FORM: unique symbol = Symbol("webfw.plainHeaders");

/**
 * A header object checked once, now, to be in the plain form (lower-cased valid names, plain
 * values), frozen and marked: a `Response` made with it, and the `Headers` made from it, skip the
 * check (it was a fifth of a small answer's making). The mark is a non-enumerable symbol: a
 * property read, and invisible to `for…in`, spreads and Bun's header conversion.
 */
export function plainHeaders(init: Record<string, string>): Readonly<Record<string, string>> {
  const plain = plainOf(init);
  if (plain === null) throw new TypeError("plainHeaders: a name or value the plain form does not hold");
  Object.defineProperty(plain, PLAIN_FORM, { value: true });
  return Object.freeze(plain);
}

/** Whether `init` was made by `plainHeaders`. */
export function isPlainHeaders(init: object): init is Readonly<Record<string, string>> {
  return (init as { [PLAIN_FORM]?: true })[PLAIN_FORM] === true;
}
