/**
 * Swagger UI's files, served by the app itself (no CDN: `/docs` renders with
 * no internet). Importing them `with { type: "file" }` gives their path in
 * node_modules when run from source, and makes `bun build --compile` embed
 * them in the binary, where the same import gives a `$bunfs` path that
 * `Bun.file` reads. Only the files the page needs are listed, so nothing else
 * in the package is reachable.
 */
import favicon16 from "swagger-ui-dist/favicon-16x16.png" with { type: "file" };
import favicon32 from "swagger-ui-dist/favicon-32x32.png" with { type: "file" };
import indexCss from "swagger-ui-dist/index.css" with { type: "file" };
import swaggerPackage from "swagger-ui-dist/package.json";
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import bundleJs from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import { HttpError } from "../response/errors.ts";
import { INIT_SCRIPT } from "./docs-page.ts";

interface Asset {
  type: string;
  /** A file path, or the content itself for what webfw writes. */
  file?: string;
  text?: string;
}

const ASSETS: Record<string, Asset> = {
  "swagger-ui-bundle.js": { file: bundleJs, type: "text/javascript; charset=utf-8" },
  "swagger-ui.css": { file: swaggerCss, type: "text/css; charset=utf-8" },
  "index.css": { file: indexCss, type: "text/css; charset=utf-8" },
  "favicon-32x32.png": { file: favicon32, type: "image/png" },
  "favicon-16x16.png": { file: favicon16, type: "image/png" },
  "webfw-init.js": { text: INIT_SCRIPT, type: "text/javascript; charset=utf-8" },
};

export const SWAGGER_UI_VERSION: string = swaggerPackage.version;

/** The asset names (for tests and the page). */
export const ASSET_NAMES: readonly string[] = Object.keys(ASSETS);

/**
 * Answers `GET <docsPath>/assets/:name`. The files change only with the
 * swagger-ui-dist version, so that version is the ETag and a browser
 * revalidates cheaply (304).
 */
export function assetResponse(name: string, request: globalThis.Request): globalThis.Response {
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (asset === undefined) throw new HttpError(404, "Not Found");
  const etag = `"swagger-ui-${SWAGGER_UI_VERSION}-${name}"`;
  const headers = { etag, "cache-control": "public, max-age=3600", "content-type": asset.type };
  if (
    request.headers
      .get("if-none-match")
      ?.split(",")
      .some((tag) => tag.trim() === etag)
  ) {
    return new globalThis.Response(null, { status: 304, headers });
  }
  const body = asset.text ?? Bun.file(asset.file as string);
  return new globalThis.Response(body, { headers });
}
