import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { ResolvedCompression } from "../compression/options.ts";
import { type SiblingLookup, siblingLookup } from "../compression/precompressed-files.ts";
import { requireDirectory } from "../embed/directories.ts";
import { realPath as realpath } from "../embed/real-path.ts";
import { type FileResponseOptions, fileResponse } from "../files/serve-file.ts";
import { requestQuery } from "../http/request-target.ts";
import { HttpError } from "../response/errors.ts";
import { appendVary } from "../response/vary.ts";
import { directoryListing } from "./listing.ts";
import { realPathInside, safeSegments } from "./safe-path.ts";

export interface ServeDirectoryOptions {
  /** URL prefix, e.g. `/static` (`/` serves from the root of the site). */
  route: string;
  /** The directory on disk (relative paths resolve against the working directory). */
  directoryPath: string;
  /** Served for a directory URL, e.g. `index.html`. */
  indexFile?: string;
  /** An HTML listing for directories without an index file. Default false. */
  showFilesListing?: boolean;
  /** Serve symlinks that point outside the directory. Default false. */
  followLinks?: boolean;
  /**
   * `"allow"` serves names starting with `.` (`.env`, `.git/…`), also when a symlink's target has
   * one. Default `"deny"`: they are not found (404) and not listed.
   */
  dotFiles?: "allow" | "deny";
  /** The older spelling of `dotFiles: "allow"` (`true`). */
  serveDotFiles?: boolean;
  /**
   * Serve `name.zst`, `name.br`, `name.gz` next to a file to clients that accept that coding
   * (docs/compression.md). Default: on when the app's `compression` is on.
   */
  precompressed?: boolean;
}

export type DirectoryServer = (
  request: globalThis.Request,
  pathname: string,
) => Promise<globalThis.Response | null>;

/**
 * A handler for the files below a route. `pathname` is the request path as
 * it appears in the URL, still percent-encoded (`new URL(request.url).pathname`).
 * It returns `null`, so that the app's routes and 404 apply, when the path
 * is not below the route, the method is not GET/HEAD, nothing exists there,
 * or the path tries to leave the directory in any way.
 */
export function createDirectoryServer(
  opts: ServeDirectoryOptions,
  compression: ResolvedCompression | null = null,
): DirectoryServer {
  const route = opts.route.replace(/\/+$/, "");
  if (route !== "" && !route.startsWith("/"))
    throw new Error(`serveDirectory: route must start with "/": ${opts.route}`);
  const root = resolve(opts.directoryPath);
  requireDirectory("serveDirectory", root);
  const followLinks = opts.followLinks ?? false;
  const allowDotFiles =
    opts.dotFiles === undefined ? (opts.serveDotFiles ?? false) : opts.dotFiles === "allow";
  const indexFile = opts.indexFile;
  const siblings =
    (opts.precompressed ?? compression !== null) ? siblingLookup(compression?.encodings) : null;
  const serve = (path: string, request: globalThis.Request, realRoot: string) =>
    siblings === null
      ? serveFile(path, request)
      : servePrecompressed(path, request, siblings, (sibling) =>
          realPathInside(sibling, realRoot, followLinks, allowDotFiles),
        );
  if (indexFile !== undefined && safeSegments(indexFile, true)?.length !== 1) {
    throw new Error(`serveDirectory: indexFile must be a plain file name: ${indexFile}`);
  }

  return async (request, pathname) => {
    if (request.method !== "GET" && request.method !== "HEAD") return null;
    if (route !== "" && pathname !== route && !pathname.startsWith(`${route}/`)) return null;
    const rest = pathname.slice(route.length);
    const segments = safeSegments(rest, allowDotFiles);
    if (segments === null) return null;

    let realRoot: string;
    try {
      realRoot = await realpath(root);
    } catch {
      return null;
    }
    const target = await realPathInside(join(realRoot, ...segments), realRoot, followLinks, allowDotFiles);
    if (target === null) return null;
    let isDirectory: boolean;
    try {
      const info = await stat(target);
      if (!info.isFile() && !info.isDirectory()) return null;
      isDirectory = info.isDirectory();
    } catch {
      return null;
    }
    // A file asked for as a directory ("/a.txt/") is not found, as in nginx.
    if (!isDirectory) return rest.endsWith("/") ? null : serve(target, request, realRoot);

    const index =
      indexFile === undefined
        ? null
        : await realPathInside(join(target, indexFile), realRoot, followLinks, allowDotFiles);
    const indexIsFile = index !== null && (await isFile(index));
    if (!indexIsFile && !opts.showFilesListing) return null;
    if (!rest.endsWith("/")) {
      // Relative links in the page need the trailing slash. Built from the
      // decoded segments, so the location always starts with exactly one "/".
      const location = `${route}/${segments.map((s) => `${encodeURIComponent(s)}/`).join("")}`;
      return new globalThis.Response(null, {
        status: 301,
        headers: { location: withQuery(location, requestQuery(request.url)) },
      });
    }
    if (indexIsFile) return serve(index!, request, realRoot);
    const urlPath = `${route}/${segments.map((s) => `${s}/`).join("")}`;
    const page = await directoryListing(target, urlPath, realRoot, {
      followLinks,
      allowDotFiles,
      isRoot: segments.length === 0,
    });
    return new globalThis.Response(request.method === "HEAD" ? null : page, {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * The client's preferred precompressed sibling when one exists (inside the directory, by the
 * same rules as any file), else the file itself; both say `Vary: Accept-Encoding`.
 */
async function servePrecompressed(
  path: string,
  request: globalThis.Request,
  siblings: SiblingLookup,
  inside: (sibling: string) => Promise<string | null>,
): Promise<globalThis.Response | null> {
  for (const candidate of siblings.candidates(request, path)) {
    const real = await inside(candidate.path);
    if (real === null || !(await isFile(real))) continue;
    const contentType = Bun.file(path).type || "application/octet-stream";
    const response = await serveFile(real, request, { contentType });
    if (response === null) continue;
    // A 304 or 416 of the sibling is about the encoded form too.
    if (response.status !== 304) response.headers.set("content-encoding", candidate.encoding);
    appendVary(response.headers, "Accept-Encoding");
    return response;
  }
  const response = await serveFile(path, request);
  if (response !== null) appendVary(response.headers, "Accept-Encoding");
  return response;
}

async function serveFile(
  path: string,
  request: globalThis.Request,
  options: FileResponseOptions = {},
): Promise<globalThis.Response | null> {
  try {
    return await fileResponse(path, request, options);
  } catch (error) {
    // Deleted between the checks and the read: let the app answer 404.
    if (error instanceof HttpError && error.status === 404) return null;
    throw error;
  }
}

function withQuery(location: string, query: string): string {
  return query === "" ? location : `${location}?${query}`;
}
