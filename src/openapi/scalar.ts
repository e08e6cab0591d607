/**
 * The Scalar API reference (`@scalar/api-reference`, the default of Elysia's
 * OpenAPI plugin) as the `/docs` page, chosen with `openapi: { docsUi: "scalar" }`
 * (docs/openapi.md). Its standalone browser bundle is served by the app from
 * the installed package: no CDN, and its web fonts and telemetry are turned
 * off, so the page renders with no internet. The bundle is found through the
 * package's entry point (its `exports` do not list the browser file), once,
 * when the app is built.
 */
import { nodeFs, nodePath } from "../builtins.ts";
import { HttpError } from "../response/errors.ts";
import { escapeHtml } from "../response/html-escape.ts";
import { referencePage } from "./docs-page.ts";

/**
 * Starts Scalar on `#app` with the document named by its `data-openapi-url`. A separate file,
 * not inline, so a `script-src 'self'` CSP does not break the page. Fonts and telemetry off:
 * both would leave the machine (fonts.scalar.com, Scalar's servers).
 */
export const SCALAR_INIT_SCRIPT = `window.addEventListener("load", function () {
  var root = document.getElementById("app");
  window.scalar = Scalar.createApiReference(root, {
    url: root.getAttribute("data-openapi-url"),
    withDefaultFonts: false,
    telemetry: false,
    showDeveloperTools: "never",
  });
});
`;

interface ScalarBundle {
  file: string;
  version: string;
}

let bundle: ScalarBundle | null = null;

/** Where the installed package's standalone bundle is, and its version (for the ETag). */
export function scalarBundle(): ScalarBundle {
  if (bundle !== null) return bundle;
  let entry: string;
  try {
    entry = Bun.resolveSync("@scalar/api-reference", import.meta.dir);
  } catch (error) {
    throw new Error(
      `openapi.docsUi "scalar" needs the @scalar/api-reference package: ${(error as Error).message}`,
    );
  }
  const dist = nodePath().dirname(entry);
  const file = nodePath().join(dist, "browser", "standalone.js");
  if (!nodeFs().existsSync(file)) throw new Error(`openapi.docsUi "scalar": ${file} is missing`);
  const pkg = JSON.parse(nodeFs().readFileSync(nodePath().join(dist, "..", "package.json"), "utf8")) as {
    version?: unknown;
  };
  bundle = { file, version: typeof pkg.version === "string" ? pkg.version : "0" };
  return bundle;
}

/** The HTML of the Scalar page; `assets` is the URL prefix of the asset routes. */
export function scalarPage(title: string, documentUrl: string, assets: string): string {
  const a = escapeHtml(assets);
  return referencePage(
    title,
    "",
    `<div id="app" data-openapi-url="${escapeHtml(documentUrl)}"></div>
<script src="${a}/scalar-standalone.js" charset="utf-8"></script>
<script src="${a}/webfw-scalar-init.js" charset="utf-8"></script>
`,
  );
}

/** The asset names of the Scalar page (for tests). */
export const SCALAR_ASSET_NAMES: readonly string[] = ["scalar-standalone.js", "webfw-scalar-init.js"];

/** Answers `GET <docsPath>/assets/:name` for the Scalar page; the package version is the ETag. */
export function scalarAssetResponse(name: string, request: globalThis.Request): globalThis.Response {
  if (!SCALAR_ASSET_NAMES.includes(name)) throw new HttpError(404, "Not Found");
  const { file, version } = scalarBundle();
  const etag = `"scalar-${version}-${name}"`;
  const headers = {
    etag,
    "cache-control": "public, max-age=3600",
    "content-type": "text/javascript; charset=utf-8",
  };
  const tags = request.headers.get("if-none-match");
  if (tags?.split(",").some((tag) => tag.trim() === etag))
    return new globalThis.Response(null, { status: 304, headers });
  const body = name === "webfw-scalar-init.js" ? SCALAR_INIT_SCRIPT : Bun.file(file);
  return new globalThis.Response(body, { headers });
}
