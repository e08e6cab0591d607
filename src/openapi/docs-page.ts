import { escapeHtml } from "../response/html-escape.ts";
/**
 * The `/docs` page: Swagger UI's bundle plus a small start script. The script
 * is a separate file (not inline) so that a Content-Security-Policy of
 * `script-src 'self'` does not break the page; the document URL reaches it
 * through a data attribute.
 */

/** Starts Swagger UI on `#swagger-ui` with the document named by its `data-openapi-url`. */
export const INIT_SCRIPT = `window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-openapi-url"),
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    // The default would ask validator.swagger.io; the page must work offline.
    validatorUrl: null,
  });
});
`;

/**
 * The page around a reference UI: its title, the tags it adds to `<head>`, and its `<body>`.
 * Swagger UI and Scalar share it (docs/openapi.md).
 */
export function referencePage(title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
${head}</head>
<body>
${body}</body>
</html>
`;
}

/** The HTML of the reference page; `assets` is the URL prefix of the asset routes. */
export function docsPage(title: string, documentUrl: string, assets: string): string {
  const a = escapeHtml(assets);
  return referencePage(
    title,
    `<link rel="stylesheet" href="${a}/swagger-ui.css">
<link rel="stylesheet" href="${a}/index.css">
<link rel="icon" type="image/png" href="${a}/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${a}/favicon-16x16.png" sizes="16x16">
`,
    `<div id="swagger-ui" data-openapi-url="${escapeHtml(documentUrl)}"></div>
<script src="${a}/swagger-ui-bundle.js" charset="utf-8"></script>
<script src="${a}/webfw-init.js" charset="utf-8"></script>
`,
  );
}
