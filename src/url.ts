/** The request URL (spec `Url`). */
export class Url {
  constructor(
    /** `http` or `https`. */
    readonly scheme: string,
    /** Host with port, as the client sent it. */
    readonly host: string,
    /** Path, still percent-encoded as received. */
    readonly path: string,
    /** Query string without the leading `?` (empty when none). */
    readonly query: string,
  ) {}

  static parse(href: string): Url {
    const schemeEnd = href.indexOf("://");
    const hostStart = schemeEnd + 3;
    let pathStart = href.indexOf("/", hostStart);
    if (pathStart === -1) pathStart = href.length;
    const queryStart = href.indexOf("?", pathStart);
    const hashStart = href.indexOf("#", pathStart);
    const pathEnd = queryStart === -1 ? (hashStart === -1 ? href.length : hashStart) : queryStart;
    const queryEnd = hashStart === -1 || hashStart < queryStart ? href.length : hashStart;
    return new Url(
      href.slice(0, schemeEnd),
      href.slice(hostStart, pathStart),
      href.slice(pathStart, pathEnd) || "/",
      queryStart === -1 ? "" : href.slice(queryStart + 1, queryEnd),
    );
  }

  /** `Url.parse(href).query` without building the rest (the hot path of `request.queryParams`). */
  static queryOf(href: string): string {
    const pathStart = href.indexOf("/", href.indexOf("://") + 3);
    if (pathStart === -1) return "";
    const queryStart = href.indexOf("?", pathStart);
    if (queryStart === -1) return "";
    const hashStart = href.indexOf("#", pathStart);
    return href.slice(queryStart + 1, hashStart === -1 || hashStart < queryStart ? href.length : hashStart);
  }

  toString(): string {
    return `${this.scheme}://${this.host}${this.path}${this.query ? `?${this.query}` : ""}`;
  }
}
