import { nodeFsPromises, nodePath } from "../builtins.ts";
import { JSON_UTF8 } from "../http/media-type.ts";
import { HttpError } from "./errors.ts";

/**
 * A return value that knows how to become a Web response (html, json,
 * serveFile …). Rendering may need the request (ranges, revalidation).
 */
export abstract class Renderable<Client = unknown> {
  /** Phantom field: what a typed client (`webfw/client`) receives; never set at run time. */
  declare readonly "~client": Client;
  /** False for bodies read from elsewhere as they are sent (files): after-middlewares get them as a stream. */
  readonly inMemory: boolean = true;
  abstract render(request: globalThis.Request): globalThis.Response | Promise<globalThis.Response>;
  /**
   * The body as text when it is made in memory, so that after-middlewares get it without a Web
   * response being built and read back (src/response/convert.ts); `null`: call `render`.
   */
  inMemoryBody(): { status: number; contentType: string; text: string } | null {
    return null;
  }
}

const HTML = "text/html; charset=utf-8";

class HtmlBody extends Renderable<string> {
  constructor(readonly text: string) {
    super();
  }
  render(): globalThis.Response {
    return new globalThis.Response(this.text, { headers: { "content-type": HTML } });
  }
  override inMemoryBody() {
    return { status: 200, contentType: HTML, text: this.text };
  }
}

/** What `json()` returns; exported for the response check (src/contracts/enforce.ts), which reads `value`. */
export class JsonBody<T> extends Renderable<{ json: T }> {
  constructor(
    readonly value: T,
    readonly status: number,
  ) {
    super();
  }
  render(): globalThis.Response {
    return new globalThis.Response(JSON.stringify(this.value) ?? "null", {
      status: this.status,
      headers: { "content-type": JSON_UTF8 },
    });
  }
  override inMemoryBody() {
    return {
      status: this.status,
      contentType: JSON_UTF8,
      text: JSON.stringify(this.value) ?? "null",
    };
  }
}

export interface ServeFileOptions {
  /** Download name for `Content-Disposition` (default: the file's base name). */
  fileName?: string;
  contentType?: string;
  /**
   * `attachment` (the default, as the spec's framework sends it) or `inline` (shown in the
   * browser, e.g. a PDF or an image); both carry the file name.
   */
  disposition?: "attachment" | "inline";
  /**
   * Confines the file to this directory: a path (typically built from request
   * input) that resolves outside it, through `..` or a symlink, is a 404.
   */
  root?: string;
  /**
   * With `root`: `"allow"` serves names starting with `.` (`.env`, `.git/config`), also reached
   * through a symlink. Default `"deny"`: 404, judged by the resolved path.
   */
  dotFiles?: "allow" | "deny";
}

class FileBody<Client> extends Renderable<Client> {
  override readonly inMemory = false;
  constructor(
    readonly path: string,
    readonly options: ServeFileOptions,
    /** `serveHtml`: shown as a page, no `Content-Disposition`. */
    readonly page = false,
  ) {
    super();
  }
  async render(request: globalThis.Request): Promise<globalThis.Response> {
    // Loaded on the first file sent, not by every app that imports `webfw` (start-up, docs/performance.md).
    const { fileResponse } = await import("../files/serve-file.ts");
    const { root, dotFiles, ...given } = this.options;
    // `serveFile(path)` is a download named after the file (spec); `serveHtml` is a page (no header).
    const options = this.page
      ? given
      : {
          ...given,
          fileName: given.fileName ?? nodePath().basename(this.path),
          disposition: given.disposition ?? "attachment",
        };
    if (root === undefined) return fileResponse(this.path, request, options);
    const realRoot = await nodeFsPromises()
      .realpath(nodePath().resolve(root))
      .catch(() => null);
    const { realPathInside } = await import("../static/safe-path.ts");
    const confined =
      realRoot &&
      (await realPathInside(nodePath().resolve(realRoot, this.path), realRoot, false, dotFiles === "allow"));
    if (!confined) throw new HttpError(404, "Not Found");
    return fileResponse(confined, request, options);
  }
}

/** An HTML response from a string. */
export function html(text: string): Renderable<string> {
  return new HtmlBody(text);
}

/** Forces a JSON response, even for values that would otherwise mean something else (a `[body, status]` pair, a string). */
export function json<T>(value: T, status = 200): Renderable<{ json: T }> {
  if (!Number.isInteger(status) || status < 200 || status > 599)
    throw new HttpError(500, "invalid status for json()");
  return new JsonBody(value, status);
}

/** A file response: streamed by Bun, with ranges and revalidation. */
export function serveFile(path: string, options: ServeFileOptions = {}): Renderable<{ file: true }> {
  return new FileBody<{ file: true }>(path, options);
}

/** An HTML page from a file. */
export function serveHtml(path: string): Renderable<string> {
  return new FileBody<string>(path, { contentType: "text/html; charset=utf-8" }, true);
}
