import { requestPath, requestQuery, schemeAndHost } from "./request-target.ts";

/** The request URL (spec `Url`). */
export class Url {
  constructor(
    /** `http` or `https`. */
    readonly scheme: string,
    /** Host with port, as the client sent it; empty for an HTTP/1.0 request without Host. */
    readonly host: string,
    /** Path, still percent-encoded as received (dot segments resolved): the path the router matched. */
    readonly path: string,
    /** Query string without the leading `?` (empty when none). */
    readonly query: string,
  ) {}

  /**
   * Parses a request URL as Bun gives it: absolute, or the bare target when
   * the request had no usable Host (src/http/request-target.ts).
   */
  static parse(href: string): Url {
    const { scheme, host } = schemeAndHost(href);
    return new Url(scheme, host, requestPath(href), requestQuery(href));
  }

  /** `Url.parse(href).query` without building the rest (the hot path of `request.queryParams`). */
  static queryOf(href: string): string {
    return requestQuery(href);
  }

  toString(): string {
    return `${this.scheme}://${this.host}${this.path}${this.query ? `?${this.query}` : ""}`;
  }
}
